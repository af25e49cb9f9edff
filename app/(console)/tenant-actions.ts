"use server";

import { cookies, headers } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import { z } from "zod";
import { switchTenant } from "@/lib/auth/switch-tenant";
import { getDb } from "@/lib/db/client";
import { isAppError } from "@/lib/errors";
import { getActingMember, TENANT_COOKIE, tenantCookieOptions } from "@/lib/server/acting-member";
import { assertSameOrigin } from "@/lib/net/request-origin";

const SwitchTenantSchema = z.strictObject({ tenantId: z.uuid() });

/** Switches the acting tenant to one of the member's own (audited); any other is refused with 403. */
export async function switchTenantFromForm(formData: FormData) {
  // A form post changes which organisation the session acts in: same-origin only, like every action.
  try {
    assertSameOrigin(await headers(), { cookieAuthenticated: true, stateChanging: true });
  } catch (error) {
    if (isAppError(error)) forbidden();
    throw error;
  }
  const parsed = SwitchTenantSchema.safeParse({ tenantId: formData.get("tenantId") });
  const actor = await getActingMember();
  if (!actor.ok && actor.reason === "signed_out") redirect("/signin");
  if (!actor.ok || !parsed.success) forbidden();
  const target = await switchTenant(getDb(), actor.member, { tenantId: parsed.data.tenantId }, "switcher");
  if (!target) forbidden();
  (await cookies()).set(TENANT_COOKIE, target.tenantId, tenantCookieOptions());
  redirect("/");
}
