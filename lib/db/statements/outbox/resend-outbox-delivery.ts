import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";
import { adminNowSql } from "@/lib/db/statements/tenant/admin-rules";

/**
 * An admin's re-send: a delivery of one of `channels` in one of `statuses` (e.g. a webhook's sent
 * or failed, an email's failed or unknown) is due now with a fresh window and the same key, audited
 * in the same statement; a pending one is left alone. Admin now only (admin-rules.ts).
 */
export async function resendOutboxDelivery(
  q: Queryable,
  input: {
    tenantId: string; deliveryId: string; channels: string[]; statuses: string[]; byUserId: string; retryWindowSeconds: number; event: AttestedAuditBody;
  },
): Promise<{ resent: true } | { resent: false; refusal: "not_admin" | "not_resendable" }> {
  const [row] = await query<{ admin: boolean; resent: boolean }>(q, Prisma.sql`
    WITH admin AS (SELECT ${adminNowSql(Prisma.sql`${input.tenantId}::uuid`, Prisma.sql`${input.byUserId}::uuid`)} AS ok),
    again AS (
      UPDATE "OutboxDelivery" SET status = 'pending', "nextAttemptAt" = now(), "giveUpAt" = now() + make_interval(secs => ${input.retryWindowSeconds}),
        "sentAt" = NULL, "sendingSince" = NULL, "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = now()
      WHERE id = ${input.deliveryId}::uuid AND "tenantId" = ${input.tenantId}::uuid AND channel = ANY (${input.channels}::text[])
        AND status = ANY (${input.statuses}::text[]) AND (SELECT ok FROM admin)
      RETURNING id
    ),
    events AS (SELECT ${JSON.stringify(input.event)}::jsonb AS event FROM again),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`)})
    SELECT (SELECT ok FROM admin) AS admin, EXISTS (SELECT 1 FROM again) AS resent`);
  if (row.resent) return { resent: true };
  return { resent: false, refusal: row.admin ? "not_resendable" : "not_admin" };
}
