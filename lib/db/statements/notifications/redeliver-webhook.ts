import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";
import { adminNowSql } from "@/lib/db/statements/tenant/admin-rules";

/**
 * An admin's redelivery: a delivered or failed delivery of the tenant is due again now, with a
 * fresh retry window and the same `webhook-id` (receivers dedupe by it), audited in the same
 * statement. One that is still pending (or being sent) is left as it is. Only by someone who is an
 * admin now (admin-rules.ts, `byUserId`). The refusal says which rule stopped it.
 */
export async function redeliverWebhook(
  q: Queryable,
  input: { tenantId: string; deliveryId: string; byUserId: string; retryWindowSeconds: number; event: AttestedAuditBody },
): Promise<{ redelivered: true } | { redelivered: false; refusal: "not_admin" | "not_redeliverable" }> {
  const [row] = await query<{ admin: boolean; redelivered: boolean }>(q, Prisma.sql`
    WITH admin AS (SELECT ${adminNowSql(Prisma.sql`${input.tenantId}::uuid`, Prisma.sql`${input.byUserId}::uuid`)} AS ok),
    again AS (
      UPDATE "WebhookDelivery" SET status = 'pending', "nextAttemptAt" = now(), "giveUpAt" = now() + make_interval(secs => ${input.retryWindowSeconds}),
        "deliveredAt" = NULL, "updatedAt" = now()
      WHERE id = ${input.deliveryId}::uuid AND "tenantId" = ${input.tenantId}::uuid AND status IN ('delivered', 'failed')
        AND (SELECT ok FROM admin)
      RETURNING id
    ),
    events AS (SELECT ${JSON.stringify(input.event)}::jsonb AS event FROM again),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`)})
    SELECT (SELECT ok FROM admin) AS admin, EXISTS (SELECT 1 FROM again) AS redelivered`);
  if (row.redelivered) return { redelivered: true };
  return { redelivered: false, refusal: row.admin ? "not_redeliverable" : "not_admin" };
}
