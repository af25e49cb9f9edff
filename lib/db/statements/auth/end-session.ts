import { Prisma } from "@/lib/generated/prisma/client";
import type { SessionEndReason } from "@/lib/generated/prisma/enums";
import { query, type Queryable } from "@/lib/db/sql";

/** Ends one session now (database clock), if it has not ended; true if this ended it. */
export async function endSessionById(q: Queryable, input: { sessionId: string; reason: SessionEndReason }): Promise<boolean> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    UPDATE "Session" SET "revokedAt" = now(), "revokedReason" = ${input.reason}::"SessionEndReason"
    WHERE id = ${input.sessionId}::uuid AND "revokedAt" IS NULL
    RETURNING id::text AS id`);
  return rows.length > 0;
}
