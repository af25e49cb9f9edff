import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { voterRefusalSql } from "@/lib/db/statements/actions/approval-rules";

export type VoterStanding = {
  /** Why the member may not decide the current revision now (approval-rules.ts), or null. */
  refusal: "not_eligible" | "self_approval" | "key_creator" | "own_edit" | null;
  /** Whether the action's window has closed, by the database clock. */
  expired: boolean;
};

/**
 * A member's standing on an action's current revision, by the same rule the vote and the claim
 * apply: for an edit (which needs the same standing, except that an editor may revise their own
 * revision again) and for what the action page offers. Null: no such action in this tenant.
 */
export async function readVoterStanding(q: Queryable, input: { tenantId: string; actionId: string; memberId: string }): Promise<VoterStanding | null> {
  const [row] = await query<VoterStanding>(q, Prisma.sql`
    SELECT ${voterRefusalSql(Prisma.sql`${input.memberId}::uuid`)} AS refusal, (a."expiresAt" IS NULL OR a."expiresAt" <= statement_timestamp()) AS expired
    FROM "Action" a JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision"
    WHERE a.id = ${input.actionId}::uuid AND a."tenantId" = ${input.tenantId}::uuid`);
  return row ?? null;
}
