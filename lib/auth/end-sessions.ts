import type { Queryable } from "@/lib/db/sql";
import { endSessionById } from "@/lib/db/statements/auth/end-session";
import { endUserSessionRows } from "@/lib/db/statements/auth/end-user-sessions";
import type { SessionEndReason } from "@/lib/generated/prisma/enums";

/** Ends one session (sign-out). Ending an ended session changes nothing. */
export async function endSession(db: Queryable, sessionId: string, reason: SessionEndReason): Promise<boolean> {
  return endSessionById(db, { sessionId, reason });
}

/**
 * Ends every live session of a user, except `exceptSessionId` (the one changing its own password
 * stays signed in). Call it in the transaction that makes the change it follows from. Returns how
 * many sessions it ended.
 */
export async function endUserSessions(
  db: Queryable,
  userId: string,
  reason: SessionEndReason,
  options: { exceptSessionId?: string } = {},
): Promise<number> {
  return endUserSessionRows(db, { userId, reason, exceptSessionId: options.exceptSessionId ?? null });
}
