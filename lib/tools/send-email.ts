import { randomUUID } from "node:crypto";
import nodemailer from "nodemailer";
import { z } from "zod";
import type { JsonObject } from "@/lib/canonical/json-value";
import { notFound } from "@/lib/errors";
import { defineTool, type ReadContext, type ToolContext, type ToolOutcome } from "@/lib/tools/tool";
import { InvoiceNumberSchema, findInvoice } from "@/lib/tools/invoice-state";
import { sqlQuery } from "@/lib/db/sql";
import { Prisma } from "@/lib/generated/prisma/client";

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

type CustomerFacts = Awaited<ReturnType<typeof findInvoice>>["customer"];

async function customerFor(ctx: ReadContext, args: Args): Promise<CustomerFacts | null> {
  if (args.invoice_number) return (await findInvoice(ctx, args.invoice_number)).customer;
  if (args.customer_ref) {
    const [customer] = await sqlQuery<CustomerFacts>(ctx.db, Prisma.sql`
      SELECT id, "tenantId", "externalRef", name, email, "verifiedDomains", "optOut", notes, version FROM "Customer"
      WHERE "tenantId" = ${ctx.tenantId}::uuid AND "externalRef" = ${args.customer_ref}`);
    if (!customer) throw notFound(`Customer ${args.customer_ref}`);
    return customer;
  }
  return null;
}

/** The queued row's result; with SMTP configured, the email goes out now. */
async function sent(ctx: ToolContext, args: Args, outboxId: string): Promise<ToolOutcome> {
  const result: JsonObject = { outbox_id: outboxId, to: args.to, status: "queued" };
  if (smtpConfigured()) {
    const transport = nodemailer.createTransport(process.env.SMTP_URL);
    await transport.sendMail({ from: process.env.SMTP_FROM ?? "countersign@localhost", to: args.to, subject: args.subject, text: args.body });
    await ctx.db.emailOutbox.update({ where: { id: outboxId }, data: { status: "sent", sentAt: new Date() } });
    result.status = "sent";
  }
  return { ok: true, result };
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
  async execute(ctx, args, idempotencyKey, options) {
    // The outbox row is unique on the key: a retry after a crash finds the row it wrote.
    const replayed = async () => {
      const [existing] = await sqlQuery<{ id: string; status: string }>(ctx.db, Prisma.sql`
        SELECT id, status::text AS status FROM "EmailOutbox" WHERE "idempotencyKey" = ${idempotencyKey}`);
      return existing ? { ok: true, result: { outbox_id: existing.id, status: existing.status, replayed: true } } : null;
    };
    const state = options?.verifiedState;
    if (state && typeof state.customer_ref === "string" && state.customer_opt_out === false) {
      // The customer was just read and checked (not opted out): one statement writes the row.
      const [queued] = await sqlQuery<{ id: string }>(ctx.db, Prisma.sql`
        INSERT INTO "EmailOutbox" (id, "tenantId", "toAddress", subject, body, "customerId", "idempotencyKey")
        VALUES (${randomUUID()}::uuid, ${ctx.tenantId}::uuid, ${args.to}, ${args.subject}, ${args.body},
          (SELECT id FROM "Customer" WHERE "tenantId" = ${ctx.tenantId}::uuid AND "externalRef" = ${state.customer_ref}),
          ${idempotencyKey})
        ON CONFLICT ("idempotencyKey") DO NOTHING
        RETURNING id`);
      if (queued) return sent(ctx, args, queued.id);
      const replay = await replayed();
      if (replay) return replay;
    }
    let customer: CustomerFacts | null;
    try {
      customer = await customerFor(ctx, args);
    } catch (error) {
      const replay = await replayed();
      if (replay) return replay;
      throw error;
    }
    const [row] = customer?.optOut
      ? []
      : await sqlQuery<{ id: string }>(ctx.db, Prisma.sql`
          INSERT INTO "EmailOutbox" (id, "tenantId", "toAddress", subject, body, "customerId", "idempotencyKey")
          VALUES (${randomUUID()}::uuid, ${ctx.tenantId}::uuid, ${args.to}, ${args.subject}, ${args.body},
            ${customer?.id ?? null}::uuid, ${idempotencyKey})
          ON CONFLICT ("idempotencyKey") DO NOTHING
          RETURNING id`);
    if (!row) {
      const replay = await replayed();
      if (replay) return replay;
      return { ok: false, result: { error: `${customer?.name ?? "The customer"} has opted out of email; nothing was sent.` } };
    }
    return sent(ctx, args, row.id);
  },
});
