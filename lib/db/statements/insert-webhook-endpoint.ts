import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/audit/audit-record";
import { auditInsertFromJson } from "@/lib/db/statements/insert-audit-events";

/**
 * Registers a webhook endpoint with its `webhook.endpoint_created` event in one statement. It
 * starts at the tenant's current tree size: it receives what happens from now on, not history.
 */
export async function insertWebhookEndpoint(
  q: Queryable,
  input: { id: string; tenantId: string; url: string; description: string; events: string[]; allowPrivate: boolean; secrets: string; createdById: string; event: AttestedAuditBody },
): Promise<void> {
  await query(q, Prisma.sql`
    WITH endpoint AS (
      INSERT INTO "WebhookEndpoint" (id, "tenantId", url, description, events, "allowPrivate", secrets, "cursorSeq", "createdById")
      SELECT ${input.id}::uuid, ${input.tenantId}::uuid, ${input.url}, ${input.description}, ${input.events}::text[], ${input.allowPrivate},
        ${input.secrets}, COALESCE((SELECT max(seq) FROM "AuditSeal" WHERE "tenantId" = ${input.tenantId}::uuid), 0), ${input.createdById}::uuid
      RETURNING id
    ),
    events AS (SELECT ${JSON.stringify(input.event)}::jsonb AS event FROM endpoint),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`)})
    SELECT 1`);
}
