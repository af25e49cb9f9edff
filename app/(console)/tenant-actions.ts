"use server";

import { cookies } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import { z } from "zod";
import { getActingMember, TENANT_COOKIE, tenantCookieOptions } from "@/lib/server/acting-member";

const SwitchTenantSchema = z.strictObject({ tenantId: z.uuid() });

/** Switches the acting tenant to one of the member's own; any other is refused with 403. */
export async function switchTenantFromForm(formData: FormData) {
  const parsed = SwitchTenantSchema.safeParse({ tenantId: formData.get("tenantId") });
  const actor = await getActingMember();
  if (!actor.ok && actor.reason === "signed_out") redirect("/signin");
  if (!actor.ok || !parsed.success) forbidden();
  const target = actor.member.memberships.find((m) => m.tenantId === parsed.data.tenantId);
  if (!target) forbidden();
  (await cookies()).set(TENANT_COOKIE, target.tenantId, tenantCookieOptions());
  redirect("/");
}
