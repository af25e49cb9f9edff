import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/audit/audit-record";
import { auditInsertFromJson } from "@/lib/db/statements/insert-audit-events";

/**
 * Revokes one key of the tenant from now (database clock) in one statement with its
 * `api_key.revoked` event (written by the console: a key's name and prefix never change). The key's row is locked first, so of two revocations at once one
 * revokes and audits and the other sees it revoked: a revoked key keeps its original time and
 * `changed` is false (no second event). Null: no such key in this tenant.
 */
export async function recordApiKeyRevocation(
  q: Queryable,
  input: { tenantId: string; apiKeyId: string; event: AttestedAuditBody },
): Promise<{ id: string; revokedAt: Date; changed: boolean } | null> {
  const [row] = await query<{ id: string; revokedAt: Date; changed: boolean }>(q, Prisma.sql`
    WITH target AS (
      SELECT id, "revokedAt" IS NULL AS active FROM "ApiKey"
      WHERE id = ${input.apiKeyId}::uuid AND "tenantId" = ${input.tenantId}::uuid FOR UPDATE
    ),
    revoked AS (
      UPDATE "ApiKey" k SET "revokedAt" = COALESCE(k."revokedAt", date_trunc('milliseconds', now()))
      FROM target WHERE k.id = target.id
      RETURNING k.id, k."revokedAt", target.active AS changed
    ),
    events AS (SELECT ${JSON.stringify(input.event)}::jsonb AS event FROM revoked r WHERE r.changed),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`)})
    SELECT id, "revokedAt", changed FROM revoked`);
  return row ?? null;
}
