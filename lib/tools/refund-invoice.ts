import { randomUUID } from "node:crypto";
import { z } from "zod";
import { sqlQuery } from "@/lib/db/sql";
import { Prisma } from "@/lib/generated/prisma/client";
import { defineTool, type ToolOutcome } from "@/lib/tools/tool";
import { InvoiceNumberSchema, findInvoice, invoiceSnapshot } from "@/lib/tools/invoice-state";
import { formatMinor } from "@/lib/tools/money";

const Args = z.strictObject({
  invoice_number: InvoiceNumberSchema,
  amount_minor: z.number().int().positive().max(1_000_000_000),
  reason: z.string().trim().min(3).max(500),
});

export const refundInvoice = defineTool({
  name: "refund_invoice",
  kind: "tool",
  description: "Refund part or all of what a customer paid on an invoice. amount_minor is in cents (45000 = 450.00).",
  classes: ["write", "financial", "irreversible"],
  args: Args,
  snapshot: async (ctx, args) => invoiceSnapshot(await findInvoice(ctx, args.invoice_number)),
  preview: (args, snapshot) => {
    const refunded = Number(snapshot?.amount_refunded_minor ?? 0);
    const paid = Number(snapshot?.amount_paid_minor ?? 0);
    const after = refunded + args.amount_minor;
    return {
      summary: `Refund ${formatMinor(args.amount_minor, String(snapshot?.currency ?? "USD"))} on ${args.invoice_number}`,
      before: { status: snapshot?.status ?? null, amount_refunded_minor: refunded },
      after: { status: after >= paid ? "refunded" : (snapshot?.status ?? null), amount_refunded_minor: after },
    };
  },
  policyContext: (args) => ({ amountMinor: args.amount_minor }),
  honoursIdempotencyKey: () => true,
  async execute(ctx, args, idempotencyKey): Promise<ToolOutcome> {
    // The refund row is unique on the key: a retry after a crash finds its own refund.
    const [existing] = await sqlQuery<{ id: string; amountMinor: number }>(ctx.db, Prisma.sql`
      SELECT id, "amountMinor" FROM "Refund" WHERE "idempotencyKey" = ${idempotencyKey}`);
    if (existing) {
      return { ok: true, result: { refund_id: existing.id, amount_minor: existing.amountMinor, replayed: true } };
    }
    const invoice = await findInvoice(ctx, args.invoice_number);
    const refundable = invoice.amountPaidMinor - invoice.amountRefundedMinor;
    if (args.amount_minor > refundable) {
      return { ok: false, result: { error: `Only ${formatMinor(refundable, invoice.currency)} of ${invoice.number} can be refunded; nothing was refunded.` } };
    }
    // One statement: the invoice (only at the version just read) and the refund row change
    // together or not at all; a concurrent refund with the same key fails on the unique key.
    const [refund] = await sqlQuery<{ id: string }>(ctx.db, Prisma.sql`
      WITH paid_back AS (
        UPDATE "Invoice" SET "amountRefundedMinor" = "amountRefundedMinor" + ${args.amount_minor}, version = version + 1,
          status = CASE WHEN ${args.amount_minor === refundable} THEN 'refunded'::"InvoiceStatus" ELSE status END,
          "updatedAt" = now()
        WHERE id = ${invoice.id}::uuid AND "tenantId" = ${ctx.tenantId}::uuid AND version = ${invoice.version}
        RETURNING id
      )
      INSERT INTO "Refund" (id, "tenantId", "invoiceId", "amountMinor", reason, "idempotencyKey")
      SELECT ${randomUUID()}::uuid, ${ctx.tenantId}::uuid, paid_back.id, ${args.amount_minor}, ${args.reason}, ${idempotencyKey}
      FROM paid_back
      RETURNING id`);
    if (!refund) return { ok: false, result: { error: `Invoice ${invoice.number} changed while refunding; nothing was refunded.` } };
    return { ok: true, result: { refund_id: refund.id, invoice_number: invoice.number, amount_minor: args.amount_minor } };
  },
});
