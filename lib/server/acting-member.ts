import "server-only";
import { getServerSession } from "next-auth";
import { cookies } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import { cache } from "react";
import { authOptions } from "@/lib/auth/auth-options";
import { loadActingMember, type ActingMember, type ActingMemberResult } from "@/lib/auth/acting-member";
import { hasPermission, type Permission } from "@/lib/roles/permissions";
import { getDb } from "@/lib/db/client";
import { readEnv } from "@/lib/env";

export const TENANT_COOKIE = "cs_tenant";

/** The tenant cookie only states a preference among the user's own memberships (see loadActingMember). */
export function tenantCookieOptions() {
  return {
    httpOnly: true,
    sameSite: "lax" as const,
    path: "/",
    // NODE_ENV is Node's and Next.js's own, not configuration.
    secure: readEnv("NEXTAUTH_URL")?.startsWith("https:") ?? false,
  };
}

export type ActorLookup = ActingMemberResult;

/**
 * The one place that answers "who is acting, in which tenant, with which roles" (per request).
 * The session cookie only names a session; loadActingMember checks it is still live in the query
 * that loads the member. The tenant cookie is a preference among the user's own memberships.
 */
export const getActingMember = cache(async (): Promise<ActorLookup> => {
  const session = await getServerSession(authOptions);
  const userId = session?.user?.id;
  const sessionId = session?.sessionId;
  if (!userId || !sessionId) return { ok: false, reason: "signed_out" };
  const preferredTenantId = (await cookies()).get(TENANT_COOKIE)?.value ?? null;
  return loadActingMember(getDb(), { userId, sessionId }, preferredTenantId);
});

/** For pages: redirects the signed-out, answers 403 to everyone else who may not be here. */
export async function requirePageMember(permission?: Permission, returnTo = "/"): Promise<ActingMember> {
  const result = await getActingMember();
  if (!result.ok) {
    if (result.reason === "signed_out") {
      redirect(`/signin?callbackUrl=${encodeURIComponent(returnTo)}`);
    }
    forbidden();
  }
  if (permission && !hasPermission(result.member.roles, permission)) forbidden();
  return result.member;
}
