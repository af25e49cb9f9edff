import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";
import { adminNowSql } from "@/lib/db/statements/tenant/admin-rules";

/**
 * Registers a webhook endpoint with its `webhook.endpoint_created` event and its outbox cursor of
 * `cursorChannel` at the tenant's current tree size (it receives what happens from now on), in one
 * statement. False: its author is not an admin now (admin-rules.ts); nothing written.
 */
export async function insertWebhookEndpoint(
  q: Queryable,
  input: { id: string; tenantId: string; cursorChannel: string; url: string; description: string; events: string[]; allowPrivate: boolean; secrets: string; createdById: string; event: AttestedAuditBody },
): Promise<boolean> {
  const [row] = await query<{ admin: boolean }>(q, Prisma.sql`
    WITH admin AS (SELECT ${adminNowSql(Prisma.sql`${input.tenantId}::uuid`, Prisma.sql`${input.createdById}::uuid`)} AS ok),
    endpoint AS (
      INSERT INTO "WebhookEndpoint" (id, "tenantId", url, description, events, "allowPrivate", secrets, "createdById")
      SELECT ${input.id}::uuid, ${input.tenantId}::uuid, ${input.url}, ${input.description}, ${input.events}::text[], ${input.allowPrivate},
        ${input.secrets}, ${input.createdById}::uuid
      WHERE (SELECT ok FROM admin)
      RETURNING id
    ),
    cursor AS (
      INSERT INTO "OutboxCursor" (channel, "subscriptionId", "tenantId", "cursorSeq")
      SELECT ${input.cursorChannel}, id, ${input.tenantId}::uuid, COALESCE((SELECT max(seq) FROM "AuditSeal" WHERE "tenantId" = ${input.tenantId}::uuid), 0)
      FROM endpoint
    ),
    events AS (SELECT ${JSON.stringify(input.event)}::jsonb AS event FROM endpoint),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`)})
    SELECT (SELECT ok FROM admin) AS admin`);
  return row.admin;
}
