import type { DbTx } from "@/lib/db/client";

export type OidcMemberResult = { ok: true; userId: string } | { ok: false; reason: "unverified_email" | "no_membership" };

/**
 * The existing member an OIDC sign-in belongs to, matched by email — only when the ID token says
 * `email_verified: true`. A missing, false or string-valued claim does not prove the person owns
 * the address, so it matches no one. SSO never creates accounts or memberships.
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
