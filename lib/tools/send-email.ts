import nodemailer from "nodemailer";
import { z } from "zod";
import type { JsonObject } from "@/lib/canonical/json-value";
import { notFound } from "@/lib/errors";
import { defineTool, type ReadContext } from "@/lib/tools/tool";
import { InvoiceNumberSchema, findInvoice } from "@/lib/tools/invoice-state";

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
  return Boolean(process.env.SMTP_URL);
}

async function customerFor(ctx: ReadContext, args: Args) {
  if (args.invoice_number) return (await findInvoice(ctx, args.invoice_number)).customer;
  if (args.customer_ref) {
    const customer = await ctx.db.customer.findFirst({ where: { tenantId: ctx.tenantId, externalRef: args.customer_ref } });
    if (!customer) throw notFound(`Customer ${args.customer_ref}`);
    return customer;
  }
  return null;
}

export const sendEmail = defineTool({
  name: "send_email",
  kind: "tool",
  description:
    "Send an email (through the outbox; over SMTP when configured). Name the invoice_number or customer_ref it concerns so the customer's verified domains and opt-out apply.",
  classes: ["external-comms", "pii"],
  args: Args,
  async snapshot(ctx, args) {
    const customer = await customerFor(ctx, args);
    if (!customer) return null;
    return {
      customer_ref: customer.externalRef,
      customer_email: customer.email,
      customer_verified_domains: customer.verifiedDomains,
      customer_opt_out: customer.optOut,
      customer_version: customer.version,
    };
  },
  preview: (args) => ({
    summary: `Email ${args.to}: “${args.subject}”`,
    before: null,
    after: { to: args.to, subject: args.subject, body: args.body },
  }),
  policyContext: (args, snapshot) => ({
    recipientDomain: args.to.split("@")[1],
    customerVerifiedDomains: (snapshot?.customer_verified_domains as string[] | undefined) ?? [],
  }),
  // The outbox row honours the key; SMTP cannot, so with SMTP a crash leaves the execution unknown.
  honoursIdempotencyKey: () => !smtpConfigured(),
  async execute(ctx, args, idempotencyKey) {
    const existing = await ctx.db.emailOutbox.findUnique({ where: { idempotencyKey } });
    if (existing) return { ok: true, result: { outbox_id: existing.id, status: existing.status, replayed: true } };
    const customer = await customerFor(ctx, args);
    if (customer?.optOut) {
      return { ok: false, result: { error: `${customer.name} has opted out of email; nothing was sent.` } };
    }
    const row = await ctx.db.emailOutbox.create({
      data: {
        tenantId: ctx.tenantId, toAddress: args.to, subject: args.subject, body: args.body,
        customerId: customer?.id ?? null, idempotencyKey,
      },
    });
    const result: JsonObject = { outbox_id: row.id, to: args.to, status: "queued" };
    if (smtpConfigured()) {
      const transport = nodemailer.createTransport(process.env.SMTP_URL);
      await transport.sendMail({ from: process.env.SMTP_FROM ?? "countersign@localhost", to: args.to, subject: args.subject, text: args.body });
      await ctx.db.emailOutbox.update({ where: { id: row.id }, data: { status: "sent", sentAt: new Date() } });
      result.status = "sent";
    }
    return { ok: true, result };
  },
});
