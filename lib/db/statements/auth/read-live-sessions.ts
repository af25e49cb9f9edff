import { Prisma } from "@/lib/generated/prisma/client";
import { sessionRowIsLiveSql } from "@/lib/db/statements/auth/session-rules";
import { query, type Queryable } from "@/lib/db/sql";

export type LiveSessionRow = {
  id: string;
  method: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  clientAddress: string | null;
  userAgent: string | null;
};

/** A user's sessions that have neither ended nor expired (database clock), most recently seen first. */
export async function readLiveSessions(q: Queryable, input: { userId: string; limit: number }): Promise<LiveSessionRow[]> {
  return query<LiveSessionRow>(q, Prisma.sql`
    SELECT id::text AS id, method, "createdAt", "lastSeenAt", "expiresAt", "clientAddress", "userAgent"
    FROM "Session"
    WHERE "userId" = ${input.userId}::uuid AND ${sessionRowIsLiveSql(Prisma.sql`"Session"`)}
    ORDER BY "lastSeenAt" DESC, id
    LIMIT ${input.limit}`);
}
