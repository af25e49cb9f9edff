import type { Db, DbTx } from "@/lib/db/client";
import { signInFailureAuditFor } from "@/lib/auth/audit-sign-in-failure";

export type OidcMemberResult = { ok: true; userId: string } | { ok: false; reason: "unverified_email" | "no_membership" };

/**
 * The existing member an OIDC sign-in belongs to, by email, only when the ID token says
 * `email_verified: true` (missing, false or a string proves nothing). SSO never creates accounts.
 */
export async function memberForOidcProfile(db: DbTx, profile: unknown): Promise<OidcMemberResult> {
  const claims = typeof profile === "object" && profile !== null ? (profile as Record<string, unknown>) : {};
  if (claims.email_verified !== true || typeof claims.email !== "string" || claims.email.trim() === "") {
    return { ok: false, reason: "unverified_email" };
  }
  const user = await db.user.findFirst({
    where: { email: claims.email.trim().toLowerCase(), disabledAt: null, memberships: { some: {} } },
    select: { id: true },
  });
  return user ? { ok: true, userId: user.id } : { ok: false, reason: "no_membership" };
}

/**
 * Audits a refused OIDC sign-in in the tenants of the account the email names, also when the
 * provider did not verify it (that member's auditors want to see it). Off the caller's path, best
 * effort; no account or membership, no event.
 */
export function auditOidcRefusal(db: Db, profile: unknown, reason: Extract<OidcMemberResult, { ok: false }>["reason"], clientAddress: string | null): void {
  const claims = typeof profile === "object" && profile !== null ? (profile as Record<string, unknown>) : {};
  if (typeof claims.email !== "string") return;
  signInFailureAuditFor(db).failed({ email: claims.email, method: "oidc", reason, clientAddress });
}
