import type { Db } from "@/lib/db/client";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { endSession } from "@/lib/auth/end-sessions";
import { sqlTransaction } from "@/lib/db/sql";
import { readSessionOwner } from "@/lib/db/statements/auth/read-session-owner";
import { isUuid } from "@/lib/db/uuid";

/**
 * Signs a session out: ends its row and writes `auth.signed_out` in each tenant of its user, in one
 * transaction, only when this ended it. Ending matters more than the record: if the events cannot
 * be written the session is ended alone and the failure logged. Returns whether this ended it.
 */
export async function signOutSession(db: Db, input: { sessionId: string; clientAddress: string | null }): Promise<boolean> {
  if (!isUuid(input.sessionId)) return false;
  try {
    const tenantIds = await sqlTransaction(db, async (tx) => {
      const session = await readSessionOwner(tx, { sessionId: input.sessionId });
      if (!session || !(await endSession(tx, input.sessionId, "signed_out"))) return null;
      for (const tenantId of session.tenantIds) {
        await appendAuditEvent(tx, {
          tenantId, actor: { type: "user", id: session.userId, label: session.email }, type: "auth.signed_out", outcome: "ok",
          subject: { type: "session", id: input.sessionId }, requester: session.email,
          data: { sessionId: input.sessionId, method: session.method === "credentials" ? "password" : session.method, clientAddress: input.clientAddress },
        });
      }
      return session.tenantIds;
    });
    for (const tenantId of tenantIds ?? []) void requestSeal(db, tenantId);
    return tenantIds !== null;
  } catch (error) {
    console.error(`[countersign] could not audit a sign-out; ending the session without it: ${(error as Error).message}`);
    return endSession(db, input.sessionId, "signed_out");
  }
}
