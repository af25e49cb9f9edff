import type { Db } from "@/lib/db/client";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { clientKeyFor } from "@/lib/auth/client-address";
import { startSession, type SessionMethod } from "@/lib/auth/start-session";

const AUDITED_METHOD = { credentials: "password", oidc: "oidc" } as const satisfies Record<SessionMethod, string>;

/**
 * A sign-in's one change: the Session row its cookie will carry, and `auth.signed_in` in every
 * tenant the user is a member of (the session may act in any of them), in one transaction. A
 * sign-in is never unaudited: if the events cannot be written, no session starts and this throws,
 * and the caller refuses the sign-in.
 */
export async function startSignedInSession(
  db: Db,
  input: { userId: string; method: SessionMethod; clientAddress: string | null; userAgent: string | null },
): Promise<{ sessionId: string; tenantIds: string[] }> {
  const result = await db.$transaction(async (tx) => {
    const user = await tx.user.findUniqueOrThrow({
      where: { id: input.userId },
      select: { email: true, memberships: { select: { tenantId: true }, orderBy: { tenantId: "asc" } } },
    });
    const { id: sessionId } = await startSession(tx, input);
    const tenantIds = user.memberships.map((m) => m.tenantId);
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
    return { sessionId, tenantIds };
  });
  for (const tenantId of result.tenantIds) void requestSeal(db, tenantId);
  return result;
}
