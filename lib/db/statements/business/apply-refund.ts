import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type RefundInput = {
  tenantId: string;
  actionId: string;
  idempotencyKey: string;
  invoiceNumber: string;
  amountMinor: number;
  reason: string;
  /**
   * The invoice's fields the approval rests on, as the reviewers approved them: the refund is
   * written only while they still hold (a change to any other field does not stop it).
   */
  verified: { status: string; currency: string; amountPaidMinor: number; amountRefundedMinor: number };
};

/**
 * One statement: the invoice (only with the approved fields unchanged, and only if the amount is still
 * refundable) and the refund row, unique on the execution's idempotency key, change together or
 * not at all. Null: the invoice is no longer in the approved state; nothing was written.
 */
export async function applyRefund(q: Queryable, input: RefundInput): Promise<{ refundId: string } | null> {
  const { verified } = input;
  const [row] = await query<{ refundId: string }>(q, Prisma.sql`
    WITH paid_back AS (
      UPDATE "Invoice" SET "amountRefundedMinor" = "amountRefundedMinor" + ${input.amountMinor}, version = version + 1,
        status = CASE WHEN "amountRefundedMinor" + ${input.amountMinor} >= "amountPaidMinor" THEN 'refunded'::"InvoiceStatus" ELSE status END,
        "updatedAt" = now()
      WHERE "tenantId" = ${input.tenantId}::uuid AND number = ${input.invoiceNumber}
        AND status::text = ${verified.status} AND currency = ${verified.currency}
        AND "amountPaidMinor" = ${verified.amountPaidMinor} AND "amountRefundedMinor" = ${verified.amountRefundedMinor}
        AND "amountPaidMinor" - "amountRefundedMinor" >= ${input.amountMinor}
      RETURNING id
    )
    INSERT INTO "Refund" (id, "tenantId", "invoiceId", "amountMinor", reason, "idempotencyKey", "actionId")
    SELECT gen_random_uuid(), ${input.tenantId}::uuid, paid_back.id, ${input.amountMinor}, ${input.reason}, ${input.idempotencyKey},
      ${input.actionId}::uuid
    FROM paid_back
    RETURNING id AS "refundId"`);
  return row ?? null;
}
