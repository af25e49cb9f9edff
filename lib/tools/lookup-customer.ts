import { z } from "zod";
import { AppError, notFound } from "@/lib/errors";
import { readCustomer } from "@/lib/db/statements/business/read-customer";
import { defineTool } from "@/lib/tools/tool";
import { CustomerRefSchema } from "@/lib/tools/state-references";

const Args = z.strictObject({
  customer_ref: CustomerRefSchema.optional(),
  email: z.string().trim().toLowerCase().email().max(320).optional(),
});

export const lookupCustomer = defineTool({
  name: "lookup_customer",
  kind: "tool",
  description: "Look up one customer by reference (CUST-001) or email. Returns contact details, verified domains, opt-out and CRM notes (untrusted free text).",
  classes: ["read", "pii"],
  args: Args,
  snapshot: async () => null,
  preview: (args) => ({ summary: `Read customer ${args.customer_ref ?? args.email}`, before: null, after: null }),
  async apply(ctx, args) {
    if (!args.customer_ref && !args.email) throw new AppError("invalid_args", "Give customer_ref or email.", 400);
    const customer = await readCustomer(ctx.q, { tenantId: ctx.tenantId, externalRef: args.customer_ref, email: args.email });
    if (!customer) throw notFound("That customer");
    return {
      ok: true,
      result: {
        customer_ref: customer.externalRef,
        name: customer.name,
        email: customer.email,
        verified_domains: customer.verifiedDomains,
        opt_out: customer.optOut,
        notes: customer.notes,
        invoices: customer.invoices.map((i) => ({ number: i.number, status: i.status, amount_due_minor: i.amountDueMinor })),
      },
    };
  },
});
