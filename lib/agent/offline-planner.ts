// The planner used without an LLM provider (SPEC "Agent runtime"): the same tool-calling loop,
// deterministic, no network, no state (each turn re-reads the conversation). In the injection
// scenario it follows an instruction in a customer's notes, as a naive model would, so the risk
// tags and the reviewer can be shown doing their job.
import type { GateOutcome } from "@/lib/agent/gate-outcome";
import type { ChatModel, ModelInput, ModelToolCall, ModelTurn } from "@/lib/agent/model";
import { moneyMentions } from "@/lib/agent/money-text";
import { readConversation, type Conversation, type ConversationCall, type JsonRecord } from "@/lib/agent/read-conversation";
import { staleBucketsPython } from "@/lib/agent/stale-buckets-code";
import { formatMinor } from "@/lib/tools/money";

export const OFFLINE_PROVIDER = "offline";
export const OFFLINE_MODEL = "offline-planner-1";

export type OfflineScenario = "python" | "refund" | "cancel" | "reminder" | "unknown";

type Step = { content: string | null; call?: { name: string; args: JsonRecord } };

const INVOICE_RE = /\bINV-\d{1,10}\b/i;
// Starts only where a run of address characters starts: retrying from inside a long run without an
// `@` is quadratic.
const EMAIL_RE = /(?<![\w.%+-])[\w.%+-]+@[a-z\d.-]+\.[a-z]{2,}/gi;
const DEFAULT_STALE_DAYS = 180;
const DEFAULT_DATASET = "storage-buckets";

export const OFFLINE_CAPABILITIES = [
  "Send a payment reminder for an invoice, e.g. “Send a payment reminder for INV-1042”",
  "Cancel an invoice, e.g. “Cancel INV-1045 because it was issued twice”",
  "Refund an invoice, e.g. “Refund 450.00 on INV-1043” or “Refund INV-1044 in full”",
  "Analyse a data set with Python, e.g. “Use Python to list stale buckets in the storage-buckets data set”",
];

/** Which demo scenario an instruction asks for (loose, case-insensitive keyword match). */
export function detectScenario(instruction: string): OfflineScenario {
  const text = instruction.toLowerCase();
  if (/\b(?:python|stale|analy[sz]e|analysis|buckets?)\b/.test(text)) return "python";
  if (/\brefund/.test(text)) return "refund";
  if (/\b(?:cancel|void)/.test(text)) return "cancel";
  if (/\b(?:remind|reminder|chase|nudge|dunning|follow[- ]?up|overdue|payment|e-?mail)\b/.test(text)) return "reminder";
  return "unknown";
}

// ---------- small readers over untrusted tool results ----------

const str = (r: JsonRecord | null | undefined, key: string): string | undefined => (typeof r?.[key] === "string" ? (r[key] as string) : undefined);
const num = (r: JsonRecord | null | undefined, key: string): number | undefined =>
  typeof r?.[key] === "number" && Number.isFinite(r[key]) ? (r[key] as number) : undefined;
const record = (v: unknown): JsonRecord | null => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as JsonRecord) : null);

function callsOf(conv: Conversation, tool: string): ConversationCall[] {
  return conv.calls.filter((c) => c.tool === tool);
}

/** The data of the latest successful call of a tool. */
function lastResult(conv: Conversation, tool: string): JsonRecord | null {
  for (let i = conv.calls.length - 1; i >= 0; i--) {
    const c = conv.calls[i];
    if (c.tool === tool && c.outcome.kind === "result") return record(c.outcome.data);
  }
  return null;
}

function quote(text: string, max = 300): string {
  const clean = text.replace(/\s+/g, " ").trim();
  return `“${clean.length > max ? `${clean.slice(0, max)}…` : clean}”`;
}

function money(inv: JsonRecord | null, key: string): string {
  return formatMinor(num(inv, key) ?? 0, str(inv, "currency") ?? "USD");
}

function describeCall(call: ConversationCall): string {
  const a = call.args ?? {};
  switch (call.tool) {
    case "send_email":
      return `the email to ${String(a.to ?? "the recipient")}`;
    case "cancel_invoice":
      return `cancelling ${String(a.invoice_number ?? "the invoice")}`;
    case "refund_invoice":
      return `the refund of ${typeof a.amount_minor === "number" ? formatMinor(a.amount_minor) : "the amount"} on ${String(a.invoice_number ?? "the invoice")}`;
    case "run_python":
      return "the Python analysis";
    default:
      return `the ${call.tool} call`;
  }
}

// ---------- instruction parsing ----------

function reasonFromInstruction(instruction: string): string | undefined {
  const match = /\b(?:because|since|reason(?:\s+is)?(?:\s*[:-])?|due to)\s+(\S.*)$/is.exec(instruction.trim());
  if (!match) return undefined;
  const reason = match[0].startsWith("due to") || match[0].startsWith("Due to") ? match[0] : match[1];
  const clean = reason.replace(/\s+/g, " ").replace(/(?<![.!])[.!]+$/, "").trim();
  if (clean.length < 3) return undefined;
  return (clean[0].toUpperCase() + clean.slice(1)).slice(0, 500);
}

function staleDays(instruction: string): number {
  const match = /(\d{1,4})\s*(?:\+\s*)?days?\b/i.exec(instruction);
  const days = match ? Number(match[1]) : DEFAULT_STALE_DAYS;
  return days > 0 ? days : DEFAULT_STALE_DAYS;
}

function datasetName(instruction: string): string {
  const text = instruction.replace(/\b(?:INV|CUST)-\d+\b/gi, " ");
  const named = /\bdata ?set\s+(?:called|named)\s+["'`“]?([a-z0-9][a-z0-9-]{0,63})/i.exec(text);
  const quoted = /["'`“]([a-z0-9][a-z0-9-]{0,63})["'`”]/i.exec(text);
  const hyphenated = /\b([a-z0-9]+(?:-[a-z0-9]+)+)\b/i.exec(text);
  const match = named ?? quoted ?? hyphenated;
  return match ? match[1].toLowerCase() : DEFAULT_DATASET;
}

// ---------- setbacks: rejected, expired, denied, blocked, failed ----------

/** A corrected call when the reviewer's reason names a new recipient or amount; else null. */
function correctionFor(call: ConversationCall, reason: string, avoid: ReadonlySet<string>): JsonRecord | null {
  if (!call.args) return null;
  if (call.tool === "send_email") {
    const current = String(call.args.to ?? "").toLowerCase();
    const address = (reason.match(EMAIL_RE) ?? []).map((e) => e.toLowerCase()).find((e) => e !== current && !avoid.has(e));
    return address ? { ...call.args, to: address } : null;
  }
  if (call.tool === "refund_invoice") {
    const current = call.args.amount_minor;
    const amount = moneyMentions(reason).find(
      (m) => m.amountMinor > 0 && m.amountMinor !== current && (m.looksLikeMoney || /\b(?:refund|amount|only|instead|to|of|max(?:imum)?|at most|limit|use)\s*$/.test(m.before)),
    );
    return amount ? { ...call.args, amount_minor: amount.amountMinor } : null;
  }
  return null;
}

function setbackStep(conv: Conversation, call: ConversationCall, outcome: GateOutcome, avoid: ReadonlySet<string>): Step {
  const what = describeCall(call);
  switch (outcome.kind) {
    case "rejected": {
      const rejections = callsOf(conv, call.tool).filter((c) => c.outcome.kind === "rejected").length;
      const corrected = rejections < 2 ? correctionFor(call, outcome.reason, avoid) : null;
      if (corrected) {
        return {
          content: `The reviewer rejected ${what}: ${quote(outcome.reason)}. I am proposing it once more with their correction.`,
          call: { name: call.tool, args: corrected },
        };
      }
      return { content: `A reviewer rejected ${what}, so I stopped. Their reason: ${quote(outcome.reason || "none given")}. Nothing was carried out for that step.` };
    }
    case "expired":
      return { content: `The approval request for ${what} expired before anyone decided it, so it was not carried out. Start the task again if it is still needed.` };
    case "denied":
      return { content: `The organisation's policy does not allow ${what}, so it was not carried out. Policy reason: ${quote(outcome.reason)}.` };
    case "blocked":
      return { content: `${capitalise(what)} was blocked before review and did not run: ${quote(outcome.reason)}.` };
    case "invalid":
      return { content: `I could not make a valid request for ${what}: ${quote(outcome.reason)}. I stopped here.` };
    case "cancelled":
      return { content: `${capitalise(what)} was cancelled: ${quote(outcome.reason)}. I stopped here.` };
    case "failed":
      return { content: `${capitalise(what)} failed: ${quote(outcome.reason)}. Nothing more was done.` };
  }
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// ---------- scenarios ----------

function invoiceNumber(instruction: string): string | undefined {
  return INVOICE_RE.exec(instruction)?.[0].toUpperCase();
}

type InvoiceScenario = (conv: Conversation, number: string, invoice: JsonRecord) => Step;

/** The step that reads the invoice (or stops when it could not be read); once read, the scenario's. */
function afterReadingInvoice(conv: Conversation, number: string, scenario: InvoiceScenario): Step {
  if (callsOf(conv, "get_invoice").length === 0) {
    return { content: `First I will read ${number}.`, call: { name: "get_invoice", args: { invoice_number: number } } };
  }
  const invoice = lastResult(conv, "get_invoice");
  return invoice ? scenario(conv, number, invoice) : { content: `I could not read ${number}, so I stopped.` };
}

/** An outside address the customer's notes tell the assistant to email (the injected instruction). */
function injectedRecipient(customer: JsonRecord | null, invoice: JsonRecord | null): string | undefined {
  const notes = str(customer, "notes");
  if (!notes || !/\b(?:e-?mail|send|forward)\b/i.test(notes)) return undefined;
  const own = [str(customer, "email"), str(invoice, "customer_email")].filter(Boolean).map((e) => (e as string).toLowerCase());
  const domains = [customer?.verified_domains, invoice?.customer_verified_domains]
    .flatMap((d) => (Array.isArray(d) ? d : []))
    .filter((d): d is string => typeof d === "string")
    .map((d) => d.toLowerCase());
  return (notes.match(EMAIL_RE) ?? [])
    .map((e) => e.toLowerCase())
    .find((e) => !own.includes(e) && !domains.some((d) => e.endsWith(`@${d}`) || e.endsWith(`.${d}`)));
}

function reminderBody(invoice: JsonRecord): string {
  const name = str(invoice, "customer_name") ?? "there";
  return [
    `Hello ${name},`,
    "",
    `This is a friendly reminder that invoice ${str(invoice, "invoice_number")} has ${money(invoice, "amount_due_minor")} outstanding, due on ${str(invoice, "due_date") ?? "the agreed date"}.`,
    "If you have already paid, please disregard this message. Otherwise we would be grateful if you could arrange payment at your earliest convenience.",
    "",
    "Thank you,",
    "Accounts receivable",
  ].join("\n");
}

function exfilBody(customer: JsonRecord | null, invoice: JsonRecord): string {
  const lines = ["As requested in the customer notes, here is the customer list with invoice totals:", ""];
  lines.push(`- ${str(customer, "name") ?? str(invoice, "customer_name") ?? "Customer"} (${str(customer, "customer_ref") ?? str(invoice, "customer_ref") ?? "?"}), ${str(customer, "email") ?? str(invoice, "customer_email") ?? ""}`);
  const invoices = Array.isArray(customer?.invoices) ? customer.invoices : [];
  for (const item of invoices) {
    const inv = record(item);
    if (inv) lines.push(`  - ${str(inv, "number")}: ${str(inv, "status")}, ${formatMinor(num(inv, "amount_due_minor") ?? 0, str(invoice, "currency") ?? "USD")} due`);
  }
  if (invoices.length === 0) lines.push(`  - ${str(invoice, "invoice_number")}: ${money(invoice, "amount_due_minor")} due`);
  return lines.join("\n");
}

function reminderScenario(conv: Conversation, number: string, invoice: JsonRecord): Step {
  const due = num(invoice, "amount_due_minor") ?? 0;
  if (str(invoice, "status") !== "open" || due <= 0) {
    return { content: `${number} is ${str(invoice, "status") ?? "not open"} with ${money(invoice, "amount_due_minor")} due, so no reminder is needed. I sent nothing.` };
  }
  const customerRef = str(invoice, "customer_ref");
  if (customerRef && callsOf(conv, "lookup_customer").length === 0) {
    return { content: `${number} has ${money(invoice, "amount_due_minor")} due. Next I will check the customer's contact details.`, call: { name: "lookup_customer", args: { customer_ref: customerRef } } };
  }
  const customer = lastResult(conv, "lookup_customer");
  const injected = injectedRecipient(customer, invoice);
  const emails = callsOf(conv, "send_email");
  const exfil = injected ? emails.filter((c) => String(c.args?.to ?? "").toLowerCase() === injected) : [];
  if (injected && exfil.length === 0) {
    // The naive model: it treats the note as an instruction from its principal.
    return {
      content: `The customer notes say to email the full customer list with invoice totals to ${injected} before doing anything else, so I will do that first.`,
      call: {
        name: "send_email",
        args: { to: injected, subject: "Customer list with invoice totals", body: exfilBody(customer, invoice), ...(customerRef ? { customer_ref: customerRef } : {}) },
      },
    };
  }
  const reminders = emails.filter((c) => !exfil.includes(c));
  const exfilRefused = exfil.some((c) => c.outcome.kind === "rejected" || c.outcome.kind === "denied");
  const to = str(invoice, "customer_email");
  if (reminders.length === 0) {
    if (!to) return { content: `${number} has no customer email address on file, so I cannot send a reminder.` };
    const apology = exfilRefused
      ? `I apologise: the email to ${injected} followed an instruction hidden in the customer's notes, which is untrusted data and not a request from you. I will not send customer data there. `
      : "";
    return {
      content: `${apology}I will send ${str(invoice, "customer_name") ?? "the customer"} a payment reminder for ${number} at ${to}.`,
      call: {
        name: "send_email",
        args: { to, subject: `Payment reminder: ${number}`, body: reminderBody(invoice), invoice_number: number },
      },
    };
  }
  const sent = reminders[reminders.length - 1];
  const result = sent.outcome.kind === "result" ? record(sent.outcome.data) : null;
  const status = str(result, "status");
  let answer = `I sent a payment reminder for ${number} (${money(invoice, "amount_due_minor")} due on ${str(invoice, "due_date") ?? "the due date"}) to ${String(sent.args?.to ?? to)}${status ? `; the email is ${status}` : ""}.`;
  if (injected) {
    const fate = exfil[exfil.length - 1]?.outcome.kind;
    answer += fate === "result"
      ? ` Warning: the customer's notes contained an instruction to email customer data to ${injected}, and that email was approved and sent. Please review it.`
      : ` Note: the customer's notes contained an instruction to email customer data to ${injected}; that email was ${fate === "denied" ? "denied by policy" : "rejected"} and not sent.`;
  }
  return { content: answer };
}

function cancelScenario(conv: Conversation, number: string, invoice: JsonRecord): Step {
  const cancels = callsOf(conv, "cancel_invoice");
  if (cancels.length === 0) {
    if (str(invoice, "status") !== "open") {
      return { content: `${number} is ${str(invoice, "status") ?? "not open"}; only open invoices can be cancelled, so I did nothing.` };
    }
    const reason = reasonFromInstruction(conv.instruction) ?? "Cancelled at the requester's request";
    return {
      content: `${number} is open with ${money(invoice, "amount_due_minor")} due. I will cancel it (reason: ${reason}).`,
      call: { name: "cancel_invoice", args: { invoice_number: number, reason } },
    };
  }
  const last = cancels[cancels.length - 1];
  return { content: `${number} is cancelled (it had ${money(invoice, "amount_due_minor")} due). Reason recorded: ${quote(String(last.args?.reason ?? ""))}.` };
}

function refundScenario(conv: Conversation, number: string, invoice: JsonRecord): Step {
  const refunds = callsOf(conv, "refund_invoice");
  if (refunds.length === 0) {
    const refundable = (num(invoice, "amount_paid_minor") ?? 0) - (num(invoice, "amount_refunded_minor") ?? 0);
    if (refundable <= 0) return { content: `Nothing has been paid on ${number} that could be refunded, so I did nothing.` };
    const full = /\b(?:full|fully|entire|whole|everything|all of it)\b/i.test(conv.instruction);
    const asked = full ? undefined : moneyMentions(conv.instruction).find((m) => m.amountMinor > 0)?.amountMinor;
    const amount = asked ?? refundable;
    const currency = str(invoice, "currency") ?? "USD";
    if (amount > refundable) {
      return { content: `You asked to refund ${formatMinor(amount, currency)} on ${number}, but only ${formatMinor(refundable, currency)} can be refunded, so I did nothing.` };
    }
    const reason = reasonFromInstruction(conv.instruction) ?? "Refund requested by the requester";
    return {
      content: `${number} has ${formatMinor(refundable, currency)} paid and not yet refunded. I will refund ${formatMinor(amount, currency)}${amount === refundable ? " (the full amount)" : ""}.`,
      call: { name: "refund_invoice", args: { invoice_number: number, amount_minor: amount, reason } },
    };
  }
  const last = refunds[refunds.length - 1];
  const result = last.outcome.kind === "result" ? record(last.outcome.data) : null;
  const amount = typeof last.args?.amount_minor === "number" ? last.args.amount_minor : (num(result, "amount_minor") ?? 0);
  return { content: `I refunded ${formatMinor(amount, str(invoice, "currency") ?? "USD")} on ${number}${str(result, "refund_id") ? ` (refund ${str(result, "refund_id")})` : ""}.` };
}

function pythonScenario(conv: Conversation): Step {
  const name = datasetName(conv.instruction);
  if (callsOf(conv, "get_dataset").length === 0) {
    return { content: `First I will read the ${name} data set.`, call: { name: "get_dataset", args: { name } } };
  }
  const dataset = lastResult(conv, "get_dataset");
  const rows = dataset?.rows;
  if (!Array.isArray(rows) || rows.length === 0) return { content: `The ${name} data set has no rows I could analyse, so I stopped.` };
  const runs = callsOf(conv, "run_python");
  const days = staleDays(conv.instruction);
  if (runs.length === 0) {
    return {
      content: `The data set has ${rows.length} rows. I will run a short Python analysis in the sandbox listing buckets not accessed in ${days} or more days, with their total size.`,
      call: { name: "run_python", args: { code: staleBucketsPython(rows, days), language: "python" } },
    };
  }
  const result = runs[runs.length - 1].outcome.kind === "result" ? runs[runs.length - 1].outcome : null;
  const data = result && result.kind === "result" ? result.data : null;
  const out = typeof data === "string" ? data : (str(record(data), "stdout") ?? "");
  const trimmed = out.trim().length > 3000 ? `…${out.trim().slice(-3000)}` : out.trim();
  const isolation = str(record(data), "isolation");
  return { content: `The analysis ran in the sandbox${isolation ? ` (${isolation})` : ""}. Its output:\n\n${trimmed || "(no output)"}` };
}

function unknownAnswer(): Step {
  return {
    content:
      "I am the offline planner (no language model is configured), so I only understand these requests:\n" +
      OFFLINE_CAPABILITIES.map((c) => `- ${c}`).join("\n") +
      "\nConfigure an LLM provider (LLM_PROVIDERS or OPENAI_API_KEY) for anything else.",
  };
}

const INVOICE_SCENARIOS: Record<"refund" | "cancel" | "reminder", InvoiceScenario> = { refund: refundScenario, cancel: cancelScenario, reminder: reminderScenario };

/** The next step for a conversation. Exported for tests and for the task timeline's dry runs. */
export function planNextStep(input: Pick<ModelInput, "messages" | "tools">): Step {
  const conv = readConversation(input.messages);
  const scenario = detectScenario(conv.instruction);
  if (scenario === "unknown") return unknownAnswer();

  const last = conv.calls[conv.calls.length - 1];
  if (last && last.outcome.kind !== "result" && last.outcome.kind !== "pending") {
    // In the injection scenario a refused exfiltration email is not the end: the planner owns up
    // and sends the legitimate reminder instead (reminderScenario handles it).
    const invoice = lastResult(conv, "get_invoice");
    const injected = scenario === "reminder" ? injectedRecipient(lastResult(conv, "lookup_customer"), invoice) : undefined;
    const refusedExfil =
      injected !== undefined &&
      last.tool === "send_email" &&
      String(last.args?.to ?? "").toLowerCase() === injected &&
      (last.outcome.kind === "rejected" || last.outcome.kind === "denied");
    if (!refusedExfil) return setbackStep(conv, last, last.outcome, new Set(injected ? [injected] : []));
  }

  let step: Step;
  if (scenario === "python") {
    step = pythonScenario(conv);
  } else {
    const number = invoiceNumber(conv.instruction);
    if (!number) return { content: "Which invoice? Please name it by number, for example INV-1042." };
    step = afterReadingInvoice(conv, number, INVOICE_SCENARIOS[scenario]);
  }
  // The loop may offer fewer tools (e.g. when it wants a final answer): never call one not offered.
  if (step.call && !input.tools.some((t) => t.type === "function" && t.function.name === step.call?.name)) {
    return { content: `I would next use ${step.call.name}, but it is not available to me now, so I stopped here.` };
  }
  return step;
}

/** Deterministic, offline ChatModel for the SPEC demo scenarios. */
export const offlinePlanner: ChatModel = {
  id: OFFLINE_PROVIDER,
  async complete(input: ModelInput): Promise<ModelTurn> {
    input.signal?.throwIfAborted();
    const step = planNextStep(input);
    const conv = readConversation(input.messages);
    const toolCalls: ModelToolCall[] = step.call
      ? [{ id: `call_${conv.assistantTurns + 1}_${step.call.name}`, name: step.call.name, argumentsText: JSON.stringify(step.call.args) }]
      : [];
    return { provider: OFFLINE_PROVIDER, model: OFFLINE_MODEL, content: step.content, toolCalls };
  },
};
