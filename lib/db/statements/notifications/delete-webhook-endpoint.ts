import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";
import { adminNowSql } from "@/lib/db/statements/tenant/admin-rules";

/**
 * Removes an endpoint of the tenant with its outbox cursor and deliveries (of `channel`) and its
 * event, in one statement: a delivery leased meanwhile is gone when its send is claimed. Admin now
 * only (admin-rules.ts). The refusal names the rule.
 */
export async function deleteWebhookEndpoint(
  q: Queryable,
  input: { tenantId: string; endpointId: string; channel: string; byUserId: string; event: AttestedAuditBody },
): Promise<{ removed: true } | { removed: false; refusal: "not_admin" | "not_found" }> {
  const [row] = await query<{ admin: boolean; removed: boolean }>(q, Prisma.sql`
    WITH admin AS (SELECT ${adminNowSql(Prisma.sql`${input.tenantId}::uuid`, Prisma.sql`${input.byUserId}::uuid`)} AS ok),
    removed AS (
      DELETE FROM "WebhookEndpoint" WHERE id = ${input.endpointId}::uuid AND "tenantId" = ${input.tenantId}::uuid AND (SELECT ok FROM admin) RETURNING id
    ),
    cursor AS (DELETE FROM "OutboxCursor" WHERE channel = ${input.channel} AND "subscriptionId" IN (SELECT id FROM removed)),
    outbox AS (DELETE FROM "OutboxDelivery" WHERE channel = ${input.channel} AND "subscriptionId" IN (SELECT id FROM removed)),
    events AS (SELECT ${JSON.stringify(input.event)}::jsonb AS event FROM removed),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`)})
    SELECT (SELECT ok FROM admin) AS admin, EXISTS (SELECT 1 FROM removed) AS removed`);
  if (row.removed) return { removed: true };
  return { removed: false, refusal: row.admin ? "not_found" : "not_admin" };
}
