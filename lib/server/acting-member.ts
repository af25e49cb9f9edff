import "server-only";
import { getServerSession } from "next-auth";
import { cookies } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import { cache } from "react";
import { authOptions } from "@/lib/auth/auth-options";
import { loadActingMember, type ActingMember, type ActingMemberResult } from "@/lib/auth/acting-member";
import { hasPermission, type Permission } from "@/lib/auth/permissions";
import { getDb } from "@/lib/db/client";

export const TENANT_COOKIE = "cs_tenant";

export type ActorLookup = ActingMemberResult | { ok: false; reason: "signed_out" };

/** The one place that answers "who is acting, in which tenant, with which roles" (per request). */
export const getActingMember = cache(async (): Promise<ActorLookup> => {
  const session = await getServerSession(authOptions);
  const userId = session?.user?.id;
  if (!userId) return { ok: false, reason: "signed_out" };
  const tenantId = (await cookies()).get(TENANT_COOKIE)?.value ?? null;
  return loadActingMember(getDb(), userId, { id: tenantId });
});

/** For pages: redirects the signed-out, answers 403 to everyone else who may not be here. */
export async function requirePageMember(permission?: Permission, returnTo = "/"): Promise<ActingMember> {
  const result = await getActingMember();
  if (!result.ok) {
    if (result.reason === "signed_out" || result.reason === "no_user") {
      redirect(`/signin?callbackUrl=${encodeURIComponent(returnTo)}`);
    }
    forbidden();
  }
  if (permission && !hasPermission(result.member.roles, permission)) forbidden();
  return result.member;
}
