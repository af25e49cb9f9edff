import nodemailer from "nodemailer";
import { z } from "zod";
import { markEmailSent } from "@/lib/db/statements/business/mark-email-sent";
import { queueEmail } from "@/lib/db/statements/business/queue-email";
import { defineTool, type Applied, type StateFinding } from "@/lib/tools/tool";
import { CustomerRefSchema, InvoiceNumberSchema, declaredStateReads, type StateReference } from "@/lib/tools/state-references";
import { readEnv } from "@/lib/env";

const Args = z.strictObject({
  to: z.string().trim().toLowerCase().email().max(320),
  subject: z.string().trim().min(1).max(200),
  body: z.string().min(1).max(20_000),
  /** The invoice or customer the email is about: its customer's verified domains and opt-out apply. */
  invoice_number: InvoiceNumberSchema.optional(),
  customer_ref: CustomerRefSchema.optional(),
});
type Args = z.infer<typeof Args>;

/** SMTP delivery is on when SMTP_URL is set (e.g. smtp://user:pass@mail.example:587). */
export function smtpConfigured(): boolean {
  return readEnv("SMTP_URL") !== undefined;
}

/**
 * What an email rests on: the invoice it is about (is it still owed, and how much: a reminder
 * quotes it) and the customer it is about — named, or the invoice's — (opt-out, and the verified
 * domains the recipient is judged against).
 */
const REST_ON = [
  { key: "invoice", entity: "invoice", arg: "invoice_number", fields: ["status", "currency", "amount_due_minor", "customer_ref"] },
  { key: "customer", entity: "customer", arg: "customer_ref", fields: ["verified_domains", "opt_out"] },
  { key: "customer", entity: "customer", arg: "invoice_number", through: "invoice", fields: ["verified_domains", "opt_out"] },
] as const satisfies readonly StateReference[];

/** The state an email's approval rests on, read back from a snapshot. */
const VerifiedSchema = z.object({
  invoice: z.object({ status: z.string(), currency: z.string(), amount_due_minor: z.number().int(), customer_ref: z.string() }).optional(),
  customer: z.object({ ref: z.string(), verified_domains: z.array(z.string()), opt_out: z.boolean() }).optional(),
});
type Verified = z.infer<typeof VerifiedSchema>;

/**
 * A customer who opted out of email gets none (whoever the address); no email goes out about a
 * cancelled invoice (nothing is owed on it); an email naming a customer and an invoice of another
 * would be judged against the wrong customer.
 */
function emailFindings(args: Args, state: Verified): StateFinding[] {
  const findings: StateFinding[] = [];
  const { invoice, customer } = state;
  if (invoice && customer && invoice.customer_ref !== customer.ref) {
    findings.push({
      id: "state.customer-mismatch",
      reason: `${args.invoice_number} belongs to customer ${invoice.customer_ref}, not ${customer.ref}: name the invoice's own customer, or only one of them.`,
      fields: ["invoice_number", "customer_ref"],
    });
  }
  if (invoice?.status === "cancelled") {
    findings.push({
      id: "state.invoice-cancelled",
      reason: `${args.invoice_number} is cancelled: the invoice is cancelled, so nothing is owed on it and no email about it may be sent.`,
      fields: ["invoice_number"],
    });
  }
  if (customer?.opt_out) {
    findings.push({
      id: "state.customer-opted-out",
      reason: `Customer ${customer.ref} has opted out of email, so no email about them may be sent.`,
      fields: [args.invoice_number ? "invoice_number" : "customer_ref", "to"],
    });
  }
  return findings;
}

export const sendEmail = defineTool({
  name: "send_email",
  kind: "tool",
  description:
    "Send an email (through the outbox; over SMTP when configured). Name the invoice_number or customer_ref it concerns so the customer's verified domains and opt-out apply.",
  classes: ["external-comms", "pii"],
  args: Args,
  restsOn: REST_ON,
  ...declaredStateReads(REST_ON),
  preview: (args) => ({
    summary: `Email ${args.to}: “${args.subject}”`,
    before: null,
    after: { to: args.to, subject: args.subject, body: args.body },
  }),
  stateChecks: (args, snapshot) => emailFindings(args, VerifiedSchema.parse(snapshot ?? {})),
  policyContext: (args, snapshot) => ({
    recipientDomain: args.to.split("@")[1],
    // A snapshot recorded before restsOn kept the domains flat; a dry run over history still reads them.
    customerVerifiedDomains: VerifiedSchema.safeParse(snapshot ?? {}).data?.customer?.verified_domains ?? (snapshot?.customer_verified_domains as string[] | undefined) ?? [],
  }),
  async apply(ctx, args): Promise<Applied> {
    // The outbox row is the effect (unique on the key); SMTP, when configured, delivers it after
    // the claim commits. The findings are checked here, on the state locked by the gate's re-read.
    const verified = VerifiedSchema.parse(ctx.verified ?? {});
    const [finding] = emailFindings(args, verified);
    if (finding) return { ok: false, result: { error: `${finding.reason} Nothing was sent.` } };
    const { customer, invoice } = verified;
    const queued = await queueEmail(ctx.q, {
      tenantId: ctx.tenantId, actionId: ctx.actionId, idempotencyKey: ctx.idempotencyKey, to: args.to, subject: args.subject, body: args.body,
      customer: customer ? { externalRef: customer.ref } : null,
      invoice: invoice && args.invoice_number ? { number: args.invoice_number, status: invoice.status } : null,
    });
    if (!queued) return { stateChanged: `What this email is about (${args.invoice_number ?? customer?.ref}) is no longer in the state the reviewers approved.` };
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
