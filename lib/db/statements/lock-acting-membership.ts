import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";

/**
 * Share-locks member `userId`'s membership of `tenantId` (if there is one) until the transaction
 * ends. The lock order of every transaction that locks a membership and another row: the
 * membership first. A role change locks the admin memberships and its target's, then that member's
 * actions (lock-membership-for-roles.ts, reopen-lost-approvals.ts); a vote, a member's execution,
 * an edit and a re-read of state call this before they lock the action (a signed vote, then its
 * passkey: a passkey's removal locks it before the actions it signed), and an admin's act that locks what it changes in a statement of
 * its own (an MCP server's listing, a webhook secret's rotation) before that. So none holds a row
 * while it waits for a membership a role change holds: a vote or an execution and a role change
 * would wait for each other (PostgreSQL fails one as a deadlock), and a listing could close such a
 * circle through a third transaction (a vote waiting for the MCP tool's row the listing holds).
 * Whether the member may act is judged later, on this locked row (approval-rules.ts, admin-rules.ts).
 */
export async function lockActingMembership(tx: SqlClient, input: { tenantId: string; userId: string }): Promise<void> {
  await query(tx, Prisma.sql`
    SELECT 1 FROM "Membership" m WHERE m."tenantId" = ${input.tenantId}::uuid AND m."userId" = ${input.userId}::uuid FOR SHARE OF m`);
}

/**
 * For an execution: share-locks, in id order, the executing member's membership (`userId`, null
 * when the requester runs its own action) and the membership of the member who requested action
 * `actionId` (an action's requester never changes, so it is read unlocked here), before the
 * execution locks the action — the lock order above. The claim judges both on these locked rows
 * (claim-approval.ts): a role change that commits first is seen, and one under way waits for the
 * execution to end. Taking the requester's after the action would close a circle with a role
 * change, which holds every admin's membership while it locks the actions its target voted on.
 */
export async function lockExecutionMemberships(tx: SqlClient, input: { tenantId: string; userId: string | null; actionId: string }): Promise<void> {
  await query(tx, Prisma.sql`
    SELECT 1 FROM "Membership" m
    WHERE m."tenantId" = ${input.tenantId}::uuid
      AND (m."userId" = ${input.userId}::uuid
        OR m."userId" = (SELECT a."requesterUserId" FROM "Action" a WHERE a.id = ${input.actionId}::uuid AND a."tenantId" = ${input.tenantId}::uuid))
    ORDER BY m.id FOR SHARE OF m`);
}
