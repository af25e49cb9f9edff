import type { Db } from "@/lib/db/client";
import { sqlTransaction } from "@/lib/db/sql";
import { readMemberTenantIds } from "@/lib/db/statements/tenant/read-member-tenant-ids";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { clientKeyFor } from "@/lib/auth/client-address";
import { startSession, type SessionMethod } from "@/lib/auth/start-session";
import { lockSigningInUser } from "@/lib/db/statements/auth/lock-signing-in-user";
import { signInFailureAuditFor } from "@/lib/auth/audit-sign-in-failure";

const AUDITED_METHOD = { credentials: "password", oidc: "oidc" } as const satisfies Record<SessionMethod, string>;

export type SignedInSession = { started: true; sessionId: string; tenantIds: string[] } | { started: false; refused: "disabled" | "password_changed" };
type Started = Extract<SignedInSession, { started: true }> | { started: false; refused: "disabled" | "password_changed"; email: string };

/** How the person proved who they are: a password sign-in names the hash it checked the password against. */
type SigningIn = { method: "credentials"; verifiedPasswordHash: string } | { method: Exclude<SessionMethod, "credentials"> };

/**
 * A sign-in's one change: its Session row and `auth.signed_in` in each of the user's tenants, in
 * one transaction that first checks, with the account share-locked, that it may still sign in (not
 * disabled; for a password, the hash just verified still current; else audited as failed). Events
 * that cannot be written start no session: this throws.
 */
export async function startSignedInSession(
  db: Db,
  input: SigningIn & { userId: string; clientAddress: string | null; userAgent: string | null },
): Promise<SignedInSession> {
  const result = await sqlTransaction(db, async (tx): Promise<Started> => {
    const user = await lockSigningInUser(tx, { userId: input.userId, verifiedPasswordHash: input.method === "credentials" ? input.verifiedPasswordHash : null });
    if (!user) throw new Error(`The account ${input.userId} signing in was deleted meanwhile.`);
    if (user.refused) return { started: false, refused: user.refused, email: user.email };
    const tenantIds = await readMemberTenantIds(tx, { userId: input.userId });
    const { id: sessionId } = await startSession(tx, { userId: input.userId, method: input.method, clientAddress: input.clientAddress, userAgent: input.userAgent });
    for (const tenantId of tenantIds) {
      await appendAuditEvent(tx, {
        tenantId, actor: { type: "user", id: input.userId, label: user.email }, type: "auth.signed_in", outcome: "ok",
        subject: { type: "session", id: sessionId }, requester: user.email,
        data: {
          method: AUDITED_METHOD[input.method], sessionId, clientAddress: input.clientAddress, clientKey: clientKeyFor(input.clientAddress),
          userAgent: input.userAgent?.slice(0, 256) ?? null,
        },
      });
    }
    return { started: true, sessionId, tenantIds };
  });
  if (!result.started) {
    // Audited like any refused sign-in, in the account's organisations.
    signInFailureAuditFor(db).failed({ email: result.email, method: AUDITED_METHOD[input.method], reason: result.refused, clientAddress: input.clientAddress });
    return { started: false, refused: result.refused };
  }
  for (const tenantId of result.tenantIds) void requestSeal(db, tenantId);
  return result;
}
