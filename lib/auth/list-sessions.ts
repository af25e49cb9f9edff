import type { DbTx } from "@/lib/db/client";

export type SessionListItem = {
  id: string;
  method: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  clientAddress: string | null;
  userAgent: string | null;
  current: boolean;
};

/** A user's live sessions (not ended, not expired by the database clock), most recently seen first. */
export async function listSessions(db: DbTx, userId: string, currentSessionId: string): Promise<SessionListItem[]> {
  const rows = await db.$queryRaw<Array<Omit<SessionListItem, "current">>>`
    SELECT id::text, method, "createdAt", "lastSeenAt", "expiresAt", "clientAddress", "userAgent"
    FROM "Session"
    WHERE "userId" = ${userId}::uuid AND "revokedAt" IS NULL AND "expiresAt" > now()
    ORDER BY "lastSeenAt" DESC, id
    LIMIT 50`;
  return rows.map((row) => ({ ...row, current: row.id === currentSessionId }));
}
