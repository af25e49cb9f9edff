import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";
import { voterRefusalSql } from "@/lib/db/statements/approval-rules";

/**
 * Whether a member may decide the action's current revision now (approval-rules.ts): null, or the
 * reason they may not (`not_eligible`, `self_approval`, `own_edit`). For an edit, which needs the
 * same standing except that an editor may revise their own revision again.
 */
export async function readVoterStanding(
  tx: SqlClient,
  input: { tenantId: string; actionId: string; memberId: string },
): Promise<"not_eligible" | "self_approval" | "own_edit" | null> {
  const [row] = await query<{ refusal: "not_eligible" | "self_approval" | "own_edit" | null }>(tx, Prisma.sql`
    SELECT ${voterRefusalSql(Prisma.sql`${input.memberId}::uuid`)} AS refusal
    FROM "Action" a JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision"
    WHERE a.id = ${input.actionId}::uuid AND a."tenantId" = ${input.tenantId}::uuid`);
  return row ? row.refusal : "not_eligible";
}
