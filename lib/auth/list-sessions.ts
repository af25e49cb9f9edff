import type { Queryable } from "@/lib/db/sql";
import { readLiveSessions, type LiveSessionRow } from "@/lib/db/statements/auth/read-live-sessions";

export type SessionListItem = LiveSessionRow & { current: boolean };

/** A user's live sessions (not ended, not expired by the database clock), most recently seen first. */
export async function listSessions(db: Queryable, userId: string, currentSessionId: string): Promise<SessionListItem[]> {
  const rows = await readLiveSessions(db, { userId, limit: 50 });
  return rows.map((row) => ({ ...row, current: row.id === currentSessionId }));
}
