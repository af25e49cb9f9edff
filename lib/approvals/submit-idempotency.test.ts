import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { expectEventsToFitTheirSchemas } from "@/tests/audit-schemas";
import { createDb, type Db } from "@/lib/db/client";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { decideAction } from "@/lib/approvals/decide-action";
import { proposeAction, type ProposalOutcome, type ProposeInput } from "@/lib/approvals/propose-action";
import { replayedSubmissionBody } from "@/lib/api/submission-response";
import { SubmitResponseSchema } from "@/lib/api/schemas";

/** Handles with pools (and proposal batchers) of their own: their statements race in the database. */
let others: Db[];

const t = setUpTestDatabase();
const a = setUpTestTenant(t);
beforeAll(async () => {
  others = [createDb(t.url, { max: 4 }), createDb(t.url, { max: 4 })];
});
afterAll(async () => {
  await Promise.all((others ?? []).map((db) => db.$disconnect()));
});

const ALL_TOOLS = ["get_invoice", "send_email", "refund_invoice", "run_python"];

async function agentKey(name: string) {
  const { apiKey } = await createApiKey(t.db, { tenantId: a.id, name: `${name}-${Math.random().toString(36).slice(2, 8)}`, allowedTools: ALL_TOOLS, createdById: a.users.admin.id });
  return { type: "api_key" as const, apiKeyId: apiKey.id, label: `api:${apiKey.name}` };
}

const email = { to: "billing@acme-corp.example", subject: "Reminder", body: "INV-1042 is due." };

function submit(requester: ProposeInput["requester"], submitKey: string | null, fields: Partial<ProposeInput> = {}, db: Db = t.db) {
  return proposeAction(db, { tenantId: a.id, requester, tool: "send_email", args: email, reason: "Remind them", submitKey, ...fields });
}

const actionsUnder = (apiKeyId: string) => t.db.action.count({ where: { tenantId: a.id, requesterApiKeyId: apiKeyId } });
const idOf = (outcome: ProposalOutcome) => outcome.actionId;

describe("submit with an Idempotency-Key", () => {
  it("a retry of the same request gets the same action back, as it is now, and proposes nothing new", async () => {
    const key = await agentKey("retry");
    const first = await submit(key, "call-1");
    expect(first.state).toBe("pending");
    // Key order and an explicit default make no difference: the arguments count as parsed.
    const again = await submit(key, "call-1", { args: { body: email.body, subject: email.subject, to: email.to } });
    expect(again).toMatchObject({ state: "replayed", actionId: first.actionId });
    expect(await actionsUnder(key.apiKeyId)).toBe(1);
    const proposedEvents = await t.db.auditEvent.findMany({ where: { actionId: first.actionId, type: "action.proposed" } });
    expect(proposedEvents).toHaveLength(1);
    expect(proposedEvents[0].data).toMatchObject({ idempotencyKey: "call-1" });

    // The reviewer rejects it; a retry now reports that, in the shape of the first answer.
    if (first.state !== "pending") throw new Error("expected pending");
    await decideAction(t.db, { tenantId: a.id, actionId: first.actionId, payloadHash: first.payloadHash, verdict: "reject", note: "Wrong customer", reviewer: a.users.reviewer.member });
    const later = await submit(key, "call-1");
    if (later.state !== "replayed") throw new Error("expected a replay");
    const body = SubmitResponseSchema.parse(replayedSubmissionBody(later.submitted));
    expect(body).toMatchObject({ state: "pending", id: first.actionId, payloadHash: first.payloadHash, replayed: true, actionState: "rejected" });
    expect(await actionsUnder(key.apiKeyId)).toBe(1);
  });

  it("reads null for an optional argument as absent before hashing: the same action under a key, the same hash without one", async () => {
    const key = await agentKey("nulls");
    const first = await submit(key, "call-null");
    const withNulls = await submit(key, "call-null", { args: { ...email, invoice_number: null, customer_ref: null } });
    expect(withNulls).toMatchObject({ state: "replayed", actionId: first.actionId });
    const [plain, nulls] = [await submit(key, null), await submit(key, null, { args: { ...email, invoice_number: null } })];
    if (plain.state !== "pending" || nulls.state !== "pending") throw new Error("expected pending");
    expect(nulls.payloadHash).toBe(plain.payloadHash);
    const stored = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: nulls.actionId } });
    expect(stored.args).toEqual(email);
  });

  it("refuses the same key with a different request (409), naming the action it was used for", async () => {
    const key = await agentKey("mismatch");
    const first = await submit(key, "call-2");
    for (const changed of [{ args: { ...email, body: "Different text." } }, { reason: "Another reason" }, { tool: "get_invoice", args: { invoice_number: "INV-1042" } }]) {
      await expect(submit(key, "call-2", changed)).rejects.toMatchObject({
        status: 409, code: "idempotency_key_reused", message: expect.stringContaining("different request"), details: { actionId: first.actionId },
      });
    }
    expect(await actionsUnder(key.apiKeyId)).toBe(1);
  });

  it("scopes keys to the API key: another key's same Idempotency-Key is its own action; no key means no binding", async () => {
    const [one, two] = [await agentKey("scope-a"), await agentKey("scope-b")];
    const mine = await submit(one, "shared-key");
    const theirs = await submit(two, "shared-key");
    expect(theirs.state).toBe("pending");
    expect(idOf(theirs)).not.toBe(idOf(mine));
    // Without a key every submit is a new action, as before.
    const unkeyed = [await submit(one, null), await submit(one, null)];
    expect(new Set(unkeyed.map(idOf)).size).toBe(2);
    expect(unkeyed.every((o) => o.state === "pending")).toBe(true);
    // A member's proposal (console, planner) never binds a key, even if one is passed.
    const byMember = [await submit(a.requester, "member-key"), await submit(a.requester, "member-key")];
    expect(byMember.map((o) => o.state)).toEqual(["pending", "pending"]);
  });

  it("replays an allowed call with its recorded result and a denied one with its reason", async () => {
    const key = await agentKey("classes");
    const read = { tool: "get_invoice", args: { invoice_number: "INV-1042" } };
    const allowed = await submit(key, "read-1", read);
    if (allowed.state !== "allowed") throw new Error(`expected allowed, got ${allowed.state}`);
    const replayedRead = await submit(key, "read-1", read);
    if (replayedRead.state !== "replayed") throw new Error("expected a replay");
    expect(SubmitResponseSchema.parse(replayedSubmissionBody(replayedRead.submitted))).toEqual({
      state: "allowed", id: allowed.actionId, policyReason: allowed.reason, replayed: true, actionState: "succeeded",
      execution: { state: "succeeded", executionId: allowed.execution.executionId, result: allowed.execution.result, isolation: allowed.execution.isolation },
    });
    const executions = await t.db.execution.count({ where: { actionId: allowed.actionId } });
    expect(executions).toBe(1);

    const refund = { tool: "refund_invoice", args: { invoice_number: "INV-1044", amount_minor: 6_000_000, reason: "Goodwill" } };
    const denied = await submit(key, "refund-1", refund);
    if (denied.state !== "denied") throw new Error(`expected denied, got ${denied.state}`);
    const replayedRefund = await submit(key, "refund-1", refund);
    if (replayedRefund.state !== "replayed") throw new Error("expected a replay");
    expect(SubmitResponseSchema.parse(replayedSubmissionBody(replayedRefund.submitted))).toEqual({
      state: "denied", id: denied.actionId, reason: denied.reason, ruleId: "refund-over-limit", riskLevel: denied.riskLevel, replayed: true, actionState: "denied",
    });
  });

  it("makes one action of concurrent duplicates, in one statement and across connections racing on the index", async () => {
    const key = await agentKey("race");
    const handles = [t.db, ...others];
    const outcomes = await Promise.all(Array.from({ length: 24 }, (_, i) => submit(key, "race-1", {}, handles[i % handles.length])));
    expect(new Set(outcomes.map(idOf)).size).toBe(1);
    expect(outcomes.filter((o) => o.state === "pending")).toHaveLength(1);
    expect(outcomes.filter((o) => o.state === "replayed")).toHaveLength(23);
    expect(await actionsUnder(key.apiKeyId)).toBe(1);
    const [action] = await t.db.action.findMany({ where: { requesterApiKeyId: key.apiKeyId } });
    expect(await t.db.actionRevision.count({ where: { actionId: action.id } })).toBe(1);
    expect(await t.db.auditEvent.count({ where: { tenantId: a.id, type: "action.proposed", actionId: action.id } })).toBe(1);
  });

  it("lets one of concurrent different requests under one key win and refuses the rest", async () => {
    const key = await agentKey("race-diff");
    const handles = [t.db, ...others];
    const settled = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => submit(key, "race-2", { args: { ...email, body: `Variant ${i % 3}` } }, handles[i % handles.length])),
    );
    const won = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    const refused = settled.flatMap((s) => (s.status === "rejected" ? [s.reason as { code: string }] : []));
    expect(await actionsUnder(key.apiKeyId)).toBe(1);
    expect(new Set(won.map(idOf)).size).toBe(1);
    expect(won.filter((o) => o.state === "pending")).toHaveLength(1);
    // Every variant but the winner's is refused; the winner's duplicates are replays.
    expect(refused.length).toBeGreaterThanOrEqual(8);
    expect(refused.every((r) => r.code === "idempotency_key_reused")).toBe(true);
  });

  it("writes only events that fit their schemas", async () => {
    await expectEventsToFitTheirSchemas(t.db, a.id);
  });
});
