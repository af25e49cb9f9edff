import nodemailer from "nodemailer";
import { z } from "zod";
import { notFound } from "@/lib/errors";
import { markEmailSent } from "@/lib/db/statements/business/mark-email-sent";
import { queueEmail } from "@/lib/db/statements/business/queue-email";
import { readCustomer } from "@/lib/db/statements/business/read-customer";
import { readCustomers } from "@/lib/db/statements/business/read-customers";
import type { JsonObject } from "@/lib/canonical/json-value";
import { defineTool, type ReadContext, type Applied, type StateFinding } from "@/lib/tools/tool";
import { InvoiceNumberSchema, findInvoice, findInvoices } from "@/lib/tools/invoice-state";
import { readEnv } from "@/lib/env";

const Args = z.strictObject({
  to: z.string().trim().toLowerCase().email().max(320),
  subject: z.string().trim().min(1).max(200),
  body: z.string().min(1).max(20_000),
  /** The invoice or customer the email is about: its customer's verified domains and opt-out apply. */
  invoice_number: InvoiceNumberSchema.optional(),
  customer_ref: z.string().trim().min(1).max(64).optional(),
});
type Args = z.infer<typeof Args>;

/** SMTP delivery is on when SMTP_URL is set (e.g. smtp://user:pass@mail.example:587). */
export function smtpConfigured(): boolean {
  return readEnv("SMTP_URL") !== undefined;
}

type CustomerFacts = { externalRef: string; name: string; email: string; verifiedDomains: string[]; optOut: boolean; version: number };

async function customerFor(ctx: ReadContext, args: Args): Promise<CustomerFacts | null> {
  if (args.invoice_number) return (await findInvoice(ctx, args.invoice_number)).customer;
  if (args.customer_ref) {
    const customer = await readCustomer(ctx.q, { tenantId: ctx.tenantId, externalRef: args.customer_ref, lock: ctx.lock });
    if (!customer) throw notFound(`Customer ${args.customer_ref}`);
    return customer;
  }
  return null;
}

/** `customerFor` for many emails: the invoices and the customers they name, one read each. */
async function customersFor(ctx: Omit<ReadContext, "lock">, all: Args[]): Promise<Array<CustomerFacts | null | Error>> {
  const invoices = await findInvoices(ctx, all.flatMap((a) => (a.invoice_number ? [a.invoice_number] : [])));
  const refs = all.flatMap((a) => (!a.invoice_number && a.customer_ref ? [a.customer_ref] : []));
  const customers = new Map((await readCustomers(ctx.q, { tenantId: ctx.tenantId, externalRefs: [...new Set(refs)] })).map((c) => [c.externalRef, c]));
  let invoice = 0;
  return all.map((a) => {
    if (a.invoice_number) {
      const row = invoices[invoice++];
      return row instanceof Error ? row : row.customer;
    }
    if (a.customer_ref) return customers.get(a.customer_ref) ?? notFound(`Customer ${a.customer_ref}`);
    return null;
  });
}

function customerSnapshot(customer: CustomerFacts | null): JsonObject | null {
  if (!customer) return null;
  return {
    customer_ref: customer.externalRef,
    customer_email: customer.email,
    customer_verified_domains: customer.verifiedDomains,
    customer_opt_out: customer.optOut,
    customer_version: customer.version,
  };
}

/** The customer facts an email's approval rests on, read back from a verified snapshot. */
const VerifiedCustomerSchema = z.object({
  customer_ref: z.string(),
  customer_name: z.string().optional(),
  customer_opt_out: z.boolean(),
  customer_version: z.number().int(),
});

/** A customer who opted out of email gets none (whoever the address). */
function optOutFindings(args: Args, customer: { customer_ref: string; customer_opt_out: boolean } | null): StateFinding[] {
  if (!customer?.customer_opt_out) return [];
  return [{
    id: "state.customer-opted-out",
    reason: `Customer ${customer.customer_ref} has opted out of email, so no email about them may be sent.`,
    fields: [args.invoice_number ? "invoice_number" : "customer_ref", "to"],
  }];
}

export const sendEmail = defineTool({
  name: "send_email",
  kind: "tool",
  description:
    "Send an email (through the outbox; over SMTP when configured). Name the invoice_number or customer_ref it concerns so the customer's verified domains and opt-out apply.",
  classes: ["external-comms", "pii"],
  args: Args,
  async snapshot(ctx, args) {
    return customerSnapshot(await customerFor(ctx, args));
  },
  snapshots: async (ctx, all) => (await customersFor(ctx, all)).map((c) => (c instanceof Error ? c : customerSnapshot(c))),
  preview: (args) => ({
    summary: `Email ${args.to}: “${args.subject}”`,
    before: null,
    after: { to: args.to, subject: args.subject, body: args.body },
  }),
  stateChecks: (args, snapshot) => optOutFindings(args, snapshot ? VerifiedCustomerSchema.parse(snapshot) : null),
  policyContext: (args, snapshot) => ({
    recipientDomain: args.to.split("@")[1],
    customerVerifiedDomains: (snapshot?.customer_verified_domains as string[] | undefined) ?? [],
  }),
  async apply(ctx, args): Promise<Applied> {
    // The outbox row is the effect (unique on the key); SMTP, when configured, delivers it after
    // the claim commits. The opt-out is checked here, on the customer locked by the gate's re-read.
    const customer = ctx.verified ? VerifiedCustomerSchema.parse(ctx.verified) : null;
    const [finding] = optOutFindings(args, customer);
    if (finding) return { ok: false, result: { error: `${finding.reason} Nothing was sent.` } };
    const queued = await queueEmail(ctx.q, {
      tenantId: ctx.tenantId, actionId: ctx.actionId, idempotencyKey: ctx.idempotencyKey, to: args.to, subject: args.subject, body: args.body,
      customer: customer ? { externalRef: customer.customer_ref, version: customer.customer_version } : null,
    });
    if (!queued) return { stateChanged: `Customer ${customer?.customer_ref} is no longer in the state the reviewers approved.` };
    return { ok: true, result: { outbox_id: queued.outboxId, to: args.to, status: "queued" }, deliver: smtpConfigured() };
  },
  async deliver(ctx, args) {
    const transport = nodemailer.createTransport(readEnv("SMTP_URL"));
    await transport.sendMail({ from: readEnv("SMTP_FROM") ?? "countersign@localhost", to: args.to, subject: args.subject, text: args.body });
    const outboxId = String(ctx.applied.outbox_id);
    await markEmailSent(ctx.q, { tenantId: ctx.tenantId, outboxId });
    return { ok: true, result: { outbox_id: outboxId, to: args.to, status: "sent" } };
  },
});
