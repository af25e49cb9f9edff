import { z } from "zod";
import { defineTool } from "@/lib/tools/tool";
import { findInvoice, invoiceFacts } from "@/lib/tools/invoice-state";
import { InvoiceNumberSchema } from "@/lib/tools/state-references";

const Args = z.strictObject({ invoice_number: InvoiceNumberSchema });

export const getInvoice = defineTool({
  name: "get_invoice",
  kind: "tool",
  description: "Read one invoice by number (e.g. INV-1042): status, amounts in minor units, due date and its customer.",
  classes: ["read"],
  args: Args,
  snapshot: async () => null,
  preview: (args) => ({ summary: `Read invoice ${args.invoice_number}`, before: null, after: null }),
  async apply(ctx, args) {
    const invoice = await findInvoice(ctx, args.invoice_number);
    return {
      ok: true,
      result: { ...invoiceFacts(invoice), due_date: invoice.dueDate.toISOString().slice(0, 10), customer_name: invoice.customer.name },
    };
  },
});
