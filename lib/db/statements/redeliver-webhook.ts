import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/audit/audit-record";
import { auditInsertFromJson } from "@/lib/db/statements/insert-audit-events";

/**
 * An admin's redelivery: a delivered or failed delivery of the tenant is due again now, with a
 * fresh retry window and the same `webhook-id` (receivers dedupe by it), audited in the same
 * statement. One that is still pending (or being sent) is left as it is. False: nothing to redo.
 */
export async function redeliverWebhook(
  q: Queryable,
  input: { tenantId: string; deliveryId: string; retryWindowSeconds: number; event: AttestedAuditBody },
): Promise<boolean> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    WITH again AS (
      UPDATE "WebhookDelivery" SET status = 'pending', "nextAttemptAt" = now(), "giveUpAt" = now() + make_interval(secs => ${input.retryWindowSeconds}),
        "deliveredAt" = NULL, "updatedAt" = now()
      WHERE id = ${input.deliveryId}::uuid AND "tenantId" = ${input.tenantId}::uuid AND status IN ('delivered', 'failed')
      RETURNING id
    ),
    events AS (SELECT ${JSON.stringify(input.event)}::jsonb AS event FROM again),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`)})
    SELECT id FROM again`);
  return rows.length > 0;
}
