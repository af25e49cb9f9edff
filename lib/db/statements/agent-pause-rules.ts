import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";

/**
 * Whether the stop button holds an agent back: its tenant's agents are paused, or the API key it
 * acts with (`apiKeyId`, a uuid expression that may be NULL) is. The one definition that the
 * proposal write (write-proposals.ts), the execution claim (claim-approval.ts) and the task claim
 * (claim-runnable-task.ts) apply in the statement that would act, so a pause committed a moment
 * ago stops the next proposal, execution and task step, whatever a process still remembers.
 */
export function agentsPausedSql(tenantId: Sql, apiKeyId: Sql = Prisma.sql`NULL::uuid`): Sql {
  return Prisma.sql`(
    EXISTS (SELECT 1 FROM "Tenant" paused_tenant WHERE paused_tenant.id = ${tenantId} AND paused_tenant."agentsPausedAt" IS NOT NULL)
    OR EXISTS (SELECT 1 FROM "ApiKey" paused_key WHERE paused_key.id = ${apiKeyId} AND paused_key."pausedAt" IS NOT NULL))`;
}
