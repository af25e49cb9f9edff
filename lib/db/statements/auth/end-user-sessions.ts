import { Prisma } from "@/lib/generated/prisma/client";
import { sessionRowIsLiveSql } from "@/lib/db/statements/auth/session-rules";
import type { SessionEndReason } from "@/lib/generated/prisma/enums";
import { query, type Queryable } from "@/lib/db/sql";

/** Ends every live session of a user now (database clock), but `exceptSessionId`; returns how many. */
export async function endUserSessionRows(
  q: Queryable,
  input: { userId: string; reason: SessionEndReason; exceptSessionId: string | null },
): Promise<number> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    UPDATE "Session" SET "revokedAt" = now(), "revokedReason" = ${input.reason}::"SessionEndReason"
    WHERE "userId" = ${input.userId}::uuid AND ${sessionRowIsLiveSql(Prisma.sql`"Session"`)}
      AND id IS DISTINCT FROM ${input.exceptSessionId}::uuid
    RETURNING id::text AS id`);
  return rows.length;
}
