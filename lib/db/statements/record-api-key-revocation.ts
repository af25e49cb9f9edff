import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AuditActor } from "@/lib/audit/append-audit-event";
import { auditInsertFromJson } from "@/lib/db/statements/insert-audit-events";

/**
 * Revokes one key of the tenant from now (database clock) in one statement with its
 * `api_key.revoked` event. The key's row is locked first, so of two revocations at once one
 * revokes and audits and the other sees it revoked: a revoked key keeps its original time and
 * `changed` is false (no second event). Null: no such key in this tenant.
 */
export async function recordApiKeyRevocation(
  q: Queryable,
  input: { tenantId: string; apiKeyId: string; actor: AuditActor },
): Promise<{ id: string; revokedAt: Date; changed: boolean } | null> {
  const [row] = await query<{ id: string; revokedAt: Date; changed: boolean }>(q, Prisma.sql`
    WITH target AS (
      SELECT id, "revokedAt" IS NULL AS active FROM "ApiKey"
      WHERE id = ${input.apiKeyId}::uuid AND "tenantId" = ${input.tenantId}::uuid FOR UPDATE
    ),
    revoked AS (
      UPDATE "ApiKey" k SET "revokedAt" = COALESCE(k."revokedAt", date_trunc('milliseconds', now()))
      FROM target WHERE k.id = target.id
      RETURNING k.id, k."tenantId", k.name, k.prefix, k."revokedAt", target.active AS changed
    ),
    events AS (
      SELECT jsonb_build_object('tenantId', r."tenantId", 'actorType', ${input.actor.type}::text, 'actorId', ${input.actor.id ?? null}::text,
        'actorLabel', ${input.actor.label}::text, 'type', 'api_key.revoked', 'outcome', 'ok', 'subjectType', 'api_key', 'subjectId', r.id,
        'actionId', NULL, 'tool', NULL, 'verdict', NULL, 'riskLevel', NULL, 'reviewerId', NULL, 'requester', NULL, 'status', NULL,
        'data', jsonb_build_object('name', r.name, 'prefix', r.prefix)) AS event
      FROM revoked r WHERE r.changed
    ),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`)})
    SELECT id, "revokedAt", changed FROM revoked`);
  return row ?? null;
}
