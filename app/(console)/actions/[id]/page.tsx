import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { z } from "zod";
import { getDb } from "@/lib/db/client";
import { requirePageMember } from "@/lib/server/acting-member";
import { passkeyOrigins } from "@/lib/server/relying-party";
import { hasPermission } from "@/lib/roles/permissions";
import { loadActionDetail } from "@/lib/review/load-action-detail";
import { ActionView } from "@/components/actions/action-view";

export const metadata: Metadata = { title: "Action" };

export default async function ActionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const member = await requirePageMember("actions:read", `/actions/${encodeURIComponent(id)}`);
  // A malformed id and another tenant's id look the same: not found.
  if (!z.uuid().safeParse(id).success) notFound();
  const action = await loadActionDetail(getDb(), { tenantId: member.tenant.id, userId: member.user.id, roles: member.roles }, id);
  if (!action) notFound();
  const signatureRequired = action.current.policyDecision.signature === "required";
  return <ActionView action={action} canReview={hasPermission(member.roles, "queue:review")} passkeyOrigins={signatureRequired ? await passkeyOrigins() : []} />;
}
