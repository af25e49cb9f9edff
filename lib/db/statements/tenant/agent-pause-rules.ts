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
 * Whether the stop button holds an agent back: its tenant's agents are paused, or its API key
 * (`apiKeyId`, may be NULL) is. The proposal write, the execution claim and the task claim apply
 * it in the statement that would act. `lockKey` (the claim) share-locks the key's row (a missing
 * key counts as paused). Lock order: docs/DESIGN.md, "Standing is judged when the act runs".
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
 * The stop button's gate: a transaction-scoped advisory lock on the tenant, taken `shared` by an
 * execution in its first statement and `exclusive` by a pause or resume before it writes. Not a
 * share lock on the tenant's row, which every execution would write (a multixact).
 */
export function agentsPauseGateSql(tenantId: Sql, mode: "shared" | "exclusive"): Sql {
  const key = Prisma.sql`hashtextextended('countersign.agents-pause:' || (${tenantId})::text, 0)`;
  return mode === "shared" ? Prisma.sql`pg_advisory_xact_lock_shared(${key})` : Prisma.sql`pg_advisory_xact_lock(${key})`;
}
