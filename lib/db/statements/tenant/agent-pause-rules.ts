import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";

/** Whether the tenant row `tenant` (an alias of "Tenant") lets its agents act: the stop button is not pressed. */
function tenantRowRunsSql(tenant: Sql): Sql {
  return Prisma.sql`${tenant}."agentsPausedAt" IS NULL`;
}

/** Whether the API key row `key` (an alias of "ApiKey") may act: that key's stop button is not pressed. */
function keyRowRunsSql(key: Sql): Sql {
  return Prisma.sql`${key}."pausedAt" IS NULL`;
}

/**
 * Whether the stop button holds an agent back: its tenant's agents are paused, or the API key it
 * acts with (`apiKeyId`, a uuid expression that may be NULL) is. The one definition that the
 * proposal write (write-proposals.ts), the execution claim (claim-approval.ts) and the task claim
 * (claim-runnable-task.ts) apply in the statement that would act, so a pause committed a moment
 * ago stops the next proposal, execution and task step, whatever a process still remembers.
 *
 * With `lockKey` (the execution claim), the key's row is share-locked while it runs and judged on
 * the version it holds then: a key's pause under way is waited for and holds the execution, and
 * one that comes later waits for the execution to end. (A key that does not exist counts as paused
 * there; an action's key always exists.) The tenant's pause is ordered with executions by
 * agentsPauseGateSql instead, taken before the claim's statement.
 */
export function agentsPausedSql(tenantId: Sql, apiKeyId: Sql = Prisma.sql`NULL::uuid`, options: { lockKey?: boolean } = {}): Sql {
  const keyPaused = options.lockKey
    ? Prisma.sql`(${apiKeyId} IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM "ApiKey" running_key WHERE running_key.id = ${apiKeyId} AND ${keyRowRunsSql(Prisma.sql`running_key`)} FOR SHARE OF running_key))`
    : Prisma.sql`EXISTS (SELECT 1 FROM "ApiKey" paused_key WHERE paused_key.id = ${apiKeyId} AND NOT ${keyRowRunsSql(Prisma.sql`paused_key`)})`;
  return Prisma.sql`(
    EXISTS (SELECT 1 FROM "Tenant" paused_tenant WHERE paused_tenant.id = ${tenantId} AND NOT ${tenantRowRunsSql(Prisma.sql`paused_tenant`)})
    OR ${keyPaused})`;
}

/**
 * The gate that orders a tenant's stop button with its executions: a transaction-scoped advisory
 * lock on the tenant, taken `shared` by an execution in its first statement (lock-acting-membership.ts)
 * and held to its commit, and `exclusive` by a pause or resume before it writes (set-agents-paused.ts).
 * So a pause waits for the executions under way, and an execution that starts while a pause is
 * being written waits for it — and then sees it, since its claim is a later statement that reads
 * the tenant's row afresh. A lock, not a share lock on the tenant's row: every execution of the
 * tenant takes it at once, and a row's share lock would write the row (a multixact) each time.
 */
export function agentsPauseGateSql(tenantId: Sql, mode: "shared" | "exclusive"): Sql {
  const key = Prisma.sql`hashtextextended('countersign.agents-pause:' || (${tenantId})::text, 0)`;
  return mode === "shared" ? Prisma.sql`pg_advisory_xact_lock_shared(${key})` : Prisma.sql`pg_advisory_xact_lock(${key})`;
}
