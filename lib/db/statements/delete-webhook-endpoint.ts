import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/audit/audit-record";
import { auditInsertFromJson } from "@/lib/db/statements/insert-audit-events";

/** Removes an endpoint of the tenant and its outbox, with the audit event, in one statement. False: not found. */
export async function deleteWebhookEndpoint(
  q: Queryable,
  input: { tenantId: string; endpointId: string; event: AttestedAuditBody },
): Promise<boolean> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    WITH removed AS (
      DELETE FROM "WebhookEndpoint" WHERE id = ${input.endpointId}::uuid AND "tenantId" = ${input.tenantId}::uuid RETURNING id
    ),
    events AS (SELECT ${JSON.stringify(input.event)}::jsonb AS event FROM removed),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`)})
    SELECT id FROM removed`);
  return rows.length > 0;
}
