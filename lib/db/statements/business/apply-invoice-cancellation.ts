import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Cancels an open invoice, only while it owes what the reviewers approved writing off. False: it
 * changed (or is no longer open); nothing was written.
 */
export async function applyInvoiceCancellation(
  q: Queryable,
  input: { tenantId: string; invoiceNumber: string; idempotencyKey: string; verifiedAmountDueMinor: number },
): Promise<boolean> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    UPDATE "Invoice" SET status = 'cancelled', "amountDueMinor" = 0, version = version + 1, "cancelKey" = ${input.idempotencyKey},
      "updatedAt" = now()
    WHERE "tenantId" = ${input.tenantId}::uuid AND number = ${input.invoiceNumber}
      AND "amountDueMinor" = ${input.verifiedAmountDueMinor} AND status = 'open'
    RETURNING id`);
  return rows.length === 1;
}
