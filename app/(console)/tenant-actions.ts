"use server";

import { getServerSession } from "next-auth";
import { cookies } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import { z } from "zod";
import { authOptions } from "@/lib/auth/auth-options";
import { loadActingMember } from "@/lib/auth/acting-member";
import { getDb } from "@/lib/db/client";
import { TENANT_COOKIE } from "@/lib/server/acting-member";

const SwitchTenantSchema = z.strictObject({ tenantId: z.uuid() });

/** Switches the acting tenant; a tenant the user does not belong to is refused with 403. */
export async function switchTenantFromForm(formData: FormData) {
  const parsed = SwitchTenantSchema.safeParse({ tenantId: formData.get("tenantId") });
  const userId = (await getServerSession(authOptions))?.user?.id;
  if (!userId) redirect("/signin");
  if (!parsed.success) forbidden();
  const result = await loadActingMember(getDb(), userId, { id: parsed.data.tenantId });
  if (!result.ok) forbidden();
  (await cookies()).set(TENANT_COOKIE, result.member.tenant.id, {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    secure: process.env.NODE_ENV === "production" && process.env.NEXTAUTH_URL?.startsWith("https:"),
  });
  redirect("/");
}
