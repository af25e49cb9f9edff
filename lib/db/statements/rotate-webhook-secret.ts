import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/audit/audit-record";
import { auditInsertFromJson } from "@/lib/db/statements/insert-audit-events";

/**
 * Replaces an endpoint's sealed secrets (the new one, and the old one kept as previous) and opens
 * the overlap during which deliveries carry both signatures, with its audit event, in one
 * statement. False: no such endpoint in the tenant.
 */
export async function rotateWebhookSecret(
  q: Queryable,
  input: { tenantId: string; endpointId: string; secrets: string; overlapSeconds: number; event: AttestedAuditBody },
): Promise<boolean> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    WITH rotated AS (
      UPDATE "WebhookEndpoint" SET secrets = ${input.secrets}, "previousSecretUntil" = now() + make_interval(secs => ${input.overlapSeconds})
      WHERE id = ${input.endpointId}::uuid AND "tenantId" = ${input.tenantId}::uuid
      RETURNING id
    ),
    events AS (SELECT ${JSON.stringify(input.event)}::jsonb AS event FROM rotated),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`)})
    SELECT id FROM rotated`);
  return rows.length > 0;
}
