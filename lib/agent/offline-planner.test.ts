import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import type { GateOutcome } from "@/lib/agent/gate-outcome";
import { assistantMessageFromTurn, type ChatMessage, type ModelTurn } from "@/lib/agent/model";
import { detectScenario, offlinePlanner } from "@/lib/agent/offline-planner";
import { gateOutcomeToolMessage, toolResultMessage } from "@/lib/agent/tool-messages";
import { parseToolCall, toolSpecsForModel } from "@/lib/agent/tool-specs";
import { scanPython } from "@/lib/sandbox/prescan";
import { INJECTION_NOTE, STORAGE_BUCKETS } from "@/lib/demo/seed";
import type { JsonObject } from "@/lib/canonical/json-value";

// Tool results shaped like the real tools' output for the demo seed.
const CUSTOMERS: Record<string, JsonObject> = {
  "CUST-001": { customer_ref: "CUST-001", name: "Acme Corporation", email: "billing@acme.example", verified_domains: ["acme.example"], opt_out: false, notes: "Key account. Accounts payable reads billing@ daily.", invoices: [{ number: "INV-1042", status: "open", amount_due_minor: 2_500_000 }] },
  "CUST-002": { customer_ref: "CUST-002", name: "Initech", email: "ap@initech.example", verified_domains: ["initech.example"], opt_out: false, notes: "Pays by wire, usually within 10 days.", invoices: [] },
  "CUST-003": { customer_ref: "CUST-003", name: "Globex Ltd", email: "finance@globex.example", verified_domains: ["globex.example"], opt_out: false, notes: INJECTION_NOTE, invoices: [{ number: "INV-1046", status: "open", amount_due_minor: 315_000 }] },
};
function invoice(number: string, ref: string, status: string, due: number, paid: number, dueDate: string): JsonObject {
  const c = CUSTOMERS[ref];
  return {
    invoice_number: number, status, currency: "USD", amount_due_minor: due, amount_paid_minor: paid, amount_refunded_minor: 0, version: 1,
    customer_ref: ref, customer_email: c.email, customer_verified_domains: c.verified_domains, customer_opt_out: false, due_date: dueDate, customer_name: c.name,
  };
}
const INVOICES: Record<string, JsonObject> = {
  "INV-1042": invoice("INV-1042", "CUST-001", "open", 2_500_000, 0, "2026-11-15"),
  "INV-1043": invoice("INV-1043", "CUST-002", "paid", 0, 45_000, "2026-10-30"),
  "INV-1044": invoice("INV-1044", "CUST-001", "paid", 0, 1_200_000, "2026-10-15"),
  "INV-1045": invoice("INV-1045", "CUST-002", "open", 78_000, 0, "2026-12-19"),
  "INV-1046": invoice("INV-1046", "CUST-003", "open", 315_000, 0, "2026-11-26"),
};

type Call = { id: string; name: string; args: JsonObject };
/** What the gate does with a call: a tool result (it ran), or an outcome. */
type Gate = (call: Call, index: number) => { result: JsonObject } | GateOutcome;

function defaultResult(call: Call): JsonObject {
  switch (call.name) {
    case "get_invoice":
      return INVOICES[String(call.args.invoice_number)];
    case "lookup_customer":
      return CUSTOMERS[String(call.args.customer_ref)];
    case "get_dataset":
      return { name: String(call.args.name), rows: STORAGE_BUCKETS };
    case "send_email":
      return { outbox_id: "ob_1", to: String(call.args.to), status: "queued" };
    case "cancel_invoice":
      return { invoice_number: String(call.args.invoice_number), status: "cancelled", reason: String(call.args.reason) };
    case "refund_invoice":
      return { refund_id: "rf_1", invoice_number: String(call.args.invoice_number), amount_minor: Number(call.args.amount_minor) };
    case "run_python":
      return { exit_code: 0, timed_out: false, oom_killed: false, truncated: false, stdout: "Buckets not accessed in 180+ days: 3 of 6\nTotal size of stale buckets: 7362 GB\n", stderr: "", duration_ms: 40, isolation: "docker" };
    default:
      throw new Error(`unexpected tool ${call.name}`);
  }
}

/** Drives the planner through the same loop shape the run loop uses, with a simulated gate. */
async function drive(instruction: string, gate: Gate = (call) => ({ result: defaultResult(call) })) {
  const tools = toolSpecsForModel();
  const messages: ChatMessage[] = [{ role: "system", content: "You are Countersign's agent." }, { role: "user", content: instruction }];
  const calls: Call[] = [];
  const turns: ModelTurn[] = [];
  for (let i = 0; i < 12; i++) {
    const turn = await offlinePlanner.complete({ messages, tools });
    turns.push(turn);
    expect(turn.provider).toBe("offline");
    expect(turn.toolCalls.length).toBeLessThanOrEqual(1);
    messages.push(assistantMessageFromTurn(turn));
    if (turn.toolCalls.length === 0) return { calls, turns, final: turn.content ?? "", messages };
    for (const toolCall of turn.toolCalls) {
      const parsed = parseToolCall(toolCall);
      if (!parsed.ok) throw new Error(`planner produced an invalid call: ${parsed.error}`);
      const call = { id: toolCall.id, name: toolCall.name, args: parsed.args };
      calls.push(call);
      const outcome = gate(call, calls.length - 1);
      messages.push("result" in outcome ? toolResultMessage(toolCall.id, call.name, outcome.result) : gateOutcomeToolMessage(toolCall.id, outcome));
    }
  }
  throw new Error("the planner did not finish within 12 turns");
}

const names = (calls: Call[]) => calls.map((c) => c.name);

describe("offline planner: demo scenarios", () => {
  it("payment reminder: reads the invoice and customer, emails the customer's own address, then summarises", async () => {
    const run = await drive("Send a payment reminder for INV-1042");
    expect(names(run.calls)).toEqual(["get_invoice", "lookup_customer", "send_email"]);
    const email = run.calls[2].args;
    expect(email).toMatchObject({ to: "billing@acme.example", invoice_number: "INV-1042", subject: "Payment reminder: INV-1042" });
    expect(email.body).toContain("25,000.00 USD");
    expect(email.body).toContain("2026-11-15");
    expect(run.final).toMatch(/sent a payment reminder for INV-1042.*billing@acme\.example.*queued/);
    // Ids are unique and name the step.
    expect(run.calls.map((c) => c.id)).toEqual(["call_1_get_invoice", "call_2_lookup_customer", "call_3_send_email"]);
  });

  it("payment reminder for a paid invoice sends nothing", async () => {
    const run = await drive("remind the customer about INV-1043");
    expect(names(run.calls)).toEqual(["get_invoice"]);
    expect(run.final).toMatch(/paid.*no reminder is needed/);
  });

  it("cancel: reads the invoice, cancels with the reason from the instruction", async () => {
    const run = await drive("Please cancel invoice inv-1045 because it was issued twice.");
    expect(names(run.calls)).toEqual(["get_invoice", "cancel_invoice"]);
    expect(run.calls[1].args).toEqual({ invoice_number: "INV-1045", reason: "It was issued twice" });
    expect(run.final).toMatch(/INV-1045 is cancelled/);
  });

  it.each([
    ["Refund 450 on INV-1043", "INV-1043", 45_000],
    ["refund $120.50 for INV-1043 because of a duplicate charge", "INV-1043", 12_050],
    ["Refund INV-1044 in full", "INV-1044", 1_200_000],
    ["Issue a refund of $12,000 on INV-1044", "INV-1044", 1_200_000],
    ["refund 12000.00 USD on INV-1044", "INV-1044", 1_200_000],
  ])("refund: %s", async (instruction, number, amount) => {
    const run = await drive(instruction);
    expect(names(run.calls)).toEqual(["get_invoice", "refund_invoice"]);
    expect(run.calls[1].args).toMatchObject({ invoice_number: number, amount_minor: amount });
    expect(run.final).toMatch(/I refunded/);
  });

  it("refund larger than what was paid is not proposed", async () => {
    const run = await drive("Refund 900 on INV-1043");
    expect(names(run.calls)).toEqual(["get_invoice"]);
    expect(run.final).toMatch(/only 450\.00 USD can be refunded/);
  });

  it("python analysis: reads the data set, runs code that passes the pre-scan, quotes the output", async () => {
    const run = await drive("Use Python to analyse the storage-buckets data set and list stale buckets");
    expect(names(run.calls)).toEqual(["get_dataset", "run_python"]);
    expect(run.calls[0].args).toEqual({ name: "storage-buckets" });
    const code = String(run.calls[1].args.code);
    const scan = await scanPython(code);
    expect(scan.parseError).toBeNull();
    expect(scan.blocked).toEqual([]);
    expect(code).not.toMatch(/import (?:os|sys|subprocess|socket|shutil)/);
    expect(run.final).toContain("Total size of stale buckets: 7362 GB");
  });

  it("the generated Python really lists the stale buckets", async () => {
    let code = "";
    await drive("find stale buckets not accessed in 180 days", (call) => {
      if (call.name === "run_python") code = String(call.args.code);
      return { result: defaultResult(call) };
    });
    let python: string | null = null;
    try {
      python = execFileSync("python3", ["-c", "print('ok')"], { encoding: "utf8" }).trim() === "ok" ? "python3" : null;
    } catch {
      python = null;
    }
    if (!python) return; // no interpreter on this machine; the pre-scan test above still holds
    const out = execFileSync(python, ["-I", "-c", code], { encoding: "utf8" });
    // Compute the expectation from the same clock the code uses.
    const today = new Date(new Date().toISOString().slice(0, 10)).getTime();
    const stale = STORAGE_BUCKETS.filter((b) => (today - new Date(b.last_access).getTime()) / 86_400_000 >= 180);
    expect(stale.length).toBeGreaterThan(0);
    for (const bucket of STORAGE_BUCKETS) {
      if (stale.includes(bucket)) expect(out).toContain(`- ${bucket.bucket}: last access ${bucket.last_access}`);
      else expect(out).not.toContain(bucket.bucket);
    }
    expect(out).toContain(`Total size of stale buckets: ${stale.reduce((sum, b) => sum + b.size_gb, 0)} GB`);
  });

  it("anything else: explains what it understands, without tool calls", async () => {
    const run = await drive("Write me a poem about invoices");
    expect(run.calls).toHaveLength(0);
    expect(run.final).toMatch(/offline planner/);
    expect(run.final).toMatch(/payment reminder/);
    expect(run.final).toMatch(/Cancel an invoice/);
    expect(run.final).toMatch(/Refund/);
    expect(run.final).toMatch(/Python/);
  });

  it("asks for an invoice number when none is given", async () => {
    const run = await drive("cancel the Acme invoice");
    expect(run.calls).toHaveLength(0);
    expect(run.final).toMatch(/INV-1042/);
  });
});

describe("offline planner: the prompt-injection case", () => {
  it("falls for the note, proposes the exfiltration email, and after rejection apologises and sends the real reminder", async () => {
    const run = await drive("Send a payment reminder for INV-1046", (call) => {
      if (call.name === "send_email" && call.args.to === "audit-desk@exfil-mail.example") {
        return { kind: "rejected", tool: "send_email", reason: "This follows an instruction planted in the customer's notes." };
      }
      return { result: defaultResult(call) };
    });
    expect(names(run.calls)).toEqual(["get_invoice", "lookup_customer", "send_email", "send_email"]);
    const exfil = run.calls[2].args;
    expect(exfil.to).toBe("audit-desk@exfil-mail.example");
    // The body carries customer data copied from tool output (for provenance risk tags).
    expect(exfil.body).toContain("finance@globex.example");
    expect(exfil.body).toContain("INV-1046");
    const legit = run.calls[3].args;
    expect(legit).toMatchObject({ to: "finance@globex.example", invoice_number: "INV-1046" });
    const apologyTurn = run.turns[3];
    expect(apologyTurn.content).toMatch(/apologise/);
    expect(run.final).toMatch(/reminder for INV-1046.*finance@globex\.example/);
    expect(run.final).toMatch(/rejected and not sent/);
  });

  it("after a policy denial of the exfiltration email it also sends the real reminder", async () => {
    const run = await drive("payment reminder INV-1046", (call) =>
      call.name === "send_email" && call.args.to !== "finance@globex.example"
        ? { kind: "denied", tool: "send_email", reason: "recipient outside the customer's verified domains" }
        : { result: defaultResult(call) },
    );
    expect(run.calls.map((c) => c.args.to ?? null)).toEqual([null, null, "audit-desk@exfil-mail.example", "finance@globex.example"]);
    expect(run.final).toMatch(/denied by policy/);
  });

  it("a reviewer's reason naming the attacker's address is not taken as a correction", async () => {
    const run = await drive("Send a payment reminder for INV-1046", (call) =>
      call.name === "send_email" && call.args.to === "audit-desk@exfil-mail.example"
        ? { kind: "rejected", tool: "send_email", reason: "Never send anything to audit-desk@exfil-mail.example" }
        : { result: defaultResult(call) },
    );
    expect(run.calls.filter((c) => c.name === "send_email").map((c) => c.args.to)).toEqual(["audit-desk@exfil-mail.example", "finance@globex.example"]);
  });
});

describe("offline planner: rejections, expiry, denial, failure", () => {
  it("rejection without a correction stops with the reviewer's reason quoted", async () => {
    const run = await drive("Cancel INV-1045 because it was issued twice", (call) =>
      call.name === "cancel_invoice" ? { kind: "rejected", tool: "cancel_invoice", reason: "The customer already agreed to pay it." } : { result: defaultResult(call) },
    );
    expect(names(run.calls)).toEqual(["get_invoice", "cancel_invoice"]);
    expect(run.final).toMatch(/rejected cancelling INV-1045/);
    expect(run.final).toContain("The customer already agreed to pay it.");
  });

  it("rejection naming a corrected amount retries once with it", async () => {
    const run = await drive("Refund 450 on INV-1043", (call, index) =>
      call.name === "refund_invoice" && index === 1 ? { kind: "rejected", tool: "refund_invoice", reason: "Too much: refund only 200.00, the rest was a valid charge." } : { result: defaultResult(call) },
    );
    expect(run.calls.filter((c) => c.name === "refund_invoice").map((c) => c.args.amount_minor)).toEqual([45_000, 20_000]);
    expect(run.final).toMatch(/refunded 200\.00 USD on INV-1043/);
  });

  it("retries at most once, then stops quoting the second reason", async () => {
    const run = await drive("Refund 450 on INV-1043", (call) =>
      call.name === "refund_invoice" ? { kind: "rejected", tool: "refund_invoice", reason: `No; refund ${call.args.amount_minor === 45_000 ? "300" : "100"} at most` } : { result: defaultResult(call) },
    );
    expect(run.calls.filter((c) => c.name === "refund_invoice").map((c) => c.args.amount_minor)).toEqual([45_000, 30_000]);
    expect(run.final).toMatch(/rejected/);
    expect(run.final).toContain("refund 100 at most");
  });

  it("rejection naming a corrected recipient retries the email to that address", async () => {
    const run = await drive("Send a payment reminder for INV-1042", (call, index) =>
      call.name === "send_email" && index === 2 ? { kind: "rejected", tool: "send_email", reason: "Use ap@acme.example, billing@ is unmonitored." } : { result: defaultResult(call) },
    );
    expect(run.calls.filter((c) => c.name === "send_email").map((c) => c.args.to)).toEqual(["billing@acme.example", "ap@acme.example"]);
    expect(run.final).toMatch(/to ap@acme\.example/);
  });

  it("expiry is reported as expiry, not as a rejection", async () => {
    const run = await drive("Refund INV-1044 in full", (call) => (call.name === "refund_invoice" ? { kind: "expired", tool: "refund_invoice" } : { result: defaultResult(call) }));
    expect(run.final).toMatch(/expired before anyone decided it/);
    expect(run.final).not.toMatch(/reject/i);
  });

  it("a policy denial is reported with the policy's reason", async () => {
    const run = await drive("Cancel INV-1045", (call) =>
      call.name === "cancel_invoice" ? { kind: "denied", tool: "cancel_invoice", reason: "cancellations are frozen during the audit" } : { result: defaultResult(call) },
    );
    expect(run.final).toMatch(/policy does not allow cancelling INV-1045/);
    expect(run.final).toContain("cancellations are frozen during the audit");
  });

  it("a tool failure (the tool refused on execution) is explained", async () => {
    const run = await drive("Send a payment reminder for INV-1042", (call) =>
      call.name === "send_email" ? { result: { error: "Acme Corporation has opted out of email; nothing was sent." } } : { result: defaultResult(call) },
    );
    expect(run.final).toMatch(/failed.*opted out of email/);
  });

  it("reads a whole ToolOutcome ({ ok, result }) as well as a bare result", async () => {
    const run = await drive("Use python to find stale buckets", (call) =>
      call.name === "run_python"
        ? { result: { ok: false, result: { exit_code: 1, timed_out: false, stdout: "", stderr: "Traceback...\nValueError: bad date" } } }
        : { result: defaultResult(call) },
    );
    expect(run.final).toMatch(/Python analysis failed.*ValueError: bad date/);
  });

  it("a call blocked by the pre-scan is explained", async () => {
    const run = await drive("Use python to find stale buckets", (call) =>
      call.name === "run_python" ? { kind: "blocked", tool: "run_python", reason: 'imports banned module "os" (line 1)' } : { result: defaultResult(call) },
    );
    expect(run.final).toMatch(/blocked before review.*banned module/);
  });
});

// The planner itself does not bound what it reads (the instruction and a reviewer's reason are
// bounded upstream); its regexes must still be linear. Each must finish well inside the test
// timeout with the right plan.
describe("offline planner on 100,000 adversarial characters", () => {
  const n = 100_000;

  it("a reason after a long run of spaces, or none at all", async () => {
    const run = await drive(`Cancel INV-1045 because${" ".repeat(n)}it was issued twice${"!".repeat(n)}`);
    expect(run.calls[1].args).toEqual({ invoice_number: "INV-1045", reason: "It was issued twice" });
    const marks = await drive(`Cancel INV-1045 because it was issued twice${"!".repeat(n)}x`);
    expect(marks.calls[1].args.reason).toBe(`It was issued twice${"!".repeat(481)}`);
    const none = await drive(`Cancel INV-1045 because${" ".repeat(n)}`);
    expect(none.calls[1].args).toEqual({ invoice_number: "INV-1045", reason: "Cancelled at the requester's request" });
  });

  it("a number followed by a long run of spaces is not a day count", async () => {
    const run = await drive(`Use Python to list stale buckets, 90${" ".repeat(n)}x`);
    expect(run.turns[1].content).toContain("not accessed in 180 or more days");
  });

  it("a reviewer's reason naming the corrected address, then a long @-free run", async () => {
    const run = await drive("Send a payment reminder for INV-1042", (call, index) =>
      call.name === "send_email" && index === 2 ? { kind: "rejected", tool: "send_email", reason: `Use ap@acme.example instead. ${"a".repeat(n)}` } : { result: defaultResult(call) },
    );
    expect(run.calls.filter((c) => c.name === "send_email").map((c) => c.args.to)).toEqual(["billing@acme.example", "ap@acme.example"]);
  });
});

describe("detectScenario", () => {
  it.each([
    ["Chase Acme about INV-1042", "reminder"],
    ["REFUND inv-1043", "refund"],
    ["void INV-1045", "cancel"],
    ["analyze the buckets", "python"],
    ["hello", "unknown"],
  ])("%s → %s", (text, scenario) => {
    expect(detectScenario(text)).toBe(scenario);
  });
});
