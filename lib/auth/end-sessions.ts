import type { DbTx } from "@/lib/db/client";
import type { SessionEndReason } from "@/lib/generated/prisma/enums";

/** Ends one session (sign-out). Ending an ended session changes nothing. */
export async function endSession(db: DbTx, sessionId: string, reason: SessionEndReason): Promise<boolean> {
  const ended = await db.$executeRaw`
    UPDATE "Session" SET "revokedAt" = now(), "revokedReason" = ${reason}::"SessionEndReason"
    WHERE id = ${sessionId}::uuid AND "revokedAt" IS NULL`;
  return ended > 0;
}

/**
 * Ends every live session of a user, except `exceptSessionId` (the one changing its own password
 * stays signed in). Call it in the transaction that makes the change it follows from. Returns how
 * many sessions it ended.
 */
export async function endUserSessions(
  db: DbTx,
  userId: string,
  reason: SessionEndReason,
  options: { exceptSessionId?: string } = {},
): Promise<number> {
  return db.$executeRaw`
    UPDATE "Session" SET "revokedAt" = now(), "revokedReason" = ${reason}::"SessionEndReason"
    WHERE "userId" = ${userId}::uuid AND "revokedAt" IS NULL AND "expiresAt" > now()
      AND id IS DISTINCT FROM ${options.exceptSessionId ?? null}::uuid`;
}
