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
 * With `lock` (the execution claim), the rows that let it act — the tenant's, and the key's if it
 * has one — are share-locked until the transaction ends and judged on the version they hold then:
 * a pause under way is waited for and holds the execution, and one that comes later waits for the
 * execution to end, so none starts after the pause that should have held it. (A row that does not
 * exist counts as paused there; an action's tenant and key always exist.)
 */
export function agentsPausedSql(tenantId: Sql, apiKeyId: Sql = Prisma.sql`NULL::uuid`, options: { lock?: boolean } = {}): Sql {
  if (options.lock) {
    return Prisma.sql`NOT (
      EXISTS (SELECT 1 FROM "Tenant" running_tenant WHERE running_tenant.id = ${tenantId} AND ${tenantRowRunsSql(Prisma.sql`running_tenant`)}
        FOR SHARE OF running_tenant)
      AND (${apiKeyId} IS NULL OR EXISTS (SELECT 1 FROM "ApiKey" running_key WHERE running_key.id = ${apiKeyId} AND ${keyRowRunsSql(Prisma.sql`running_key`)}
        FOR SHARE OF running_key)))`;
  }
  return Prisma.sql`(
    EXISTS (SELECT 1 FROM "Tenant" paused_tenant WHERE paused_tenant.id = ${tenantId} AND NOT ${tenantRowRunsSql(Prisma.sql`paused_tenant`)})
    OR EXISTS (SELECT 1 FROM "ApiKey" paused_key WHERE paused_key.id = ${apiKeyId} AND NOT ${keyRowRunsSql(Prisma.sql`paused_key`)}))`;
}
