import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import type { TestTenant } from "@/tests/factories";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { proposeAction, type ProposalOutcome, type ProposeInput } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { editAction } from "@/lib/approvals/edit-action";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { loadActionDetail } from "@/lib/review/load-action-detail";
import { ActionFacts } from "@/components/actions/action-facts";
import { callGatewayTool } from "@/lib/mcp/call-gateway-tool";
import { createDb, type Db } from "@/lib/db/client";
import pg from "pg";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import type { Policy } from "@/lib/policy/policy-document";
import { submissionBody } from "@/lib/api/submission-response";
import { SubmitResponseSchema } from "@/lib/api/schemas";

// Budgets are judged in the transaction that writes the proposal, under the budget's lock
// (lib/approvals/budgeted-proposals.ts; docs/DESIGN.md, "Budgets"). These tests race real
// PostgreSQL and check what each key may spend.

const SPENT = 'budget.window("24h").sum("refund_invoice", "amount_minor", "key")';
/** 1,000.00 a day per key; a refund over 500.00 always needs a reviewer. */
const budgetPolicy = (overBudget: "require_approval" | "deny"): Policy => ({
  ...DEFAULT_POLICY,
  tools: {
    ...DEFAULT_POLICY.tools,
    refund_invoice: {
      rules: [
        { id: "refund-over-budget", when: `${SPENT} + args.amount_minor > 100000`, effect: overBudget, reason: "Over this key's daily refund budget" },
        { id: "refund-large", when: "args.amount_minor > 50000", effect: "require_approval", reason: "Large refund" },
        { id: "refund-within-budget", effect: "allow", reason: "Within this key's daily refund budget" },
      ],
    },
  },
});

const t = setUpTestDatabase();
const review = setUpTestTenant(t, { policy: budgetPolicy("require_approval") });
const deny = setUpTestTenant(t, { policy: budgetPolicy("deny") });

async function agentOf(tenant: TestTenant, name: string): Promise<ProposeInput["requester"]> {
  const { apiKey } = await createApiKey(t.db, { tenantId: tenant.id, name, allowedTools: ["refund_invoice"], createdById: tenant.users.admin.id });
  return { type: "api_key", apiKeyId: apiKey.id, label: `api:${apiKey.name}` };
}

const refund = (tenant: TestTenant, requester: ProposeInput["requester"], amountMinor: number, invoice = "INV-1044") =>
  proposeAction(t.db, { tenantId: tenant.id, requester, tool: "refund_invoice", args: { invoice_number: invoice, amount_minor: amountMinor, reason: "Duplicate charge" } });

const count = (outcomes: ProposalOutcome[], state: ProposalOutcome["state"]) => outcomes.filter((o) => o.state === state).length;

describe("a budget judged with the proposal's write", () => {
  let raceKey: ProposeInput["requester"];
  let denyKey: ProposeInput["requester"];
  beforeAll(async () => {
    raceKey = await agentOf(review, "racer");
    denyKey = await agentOf(deny, "racer-deny");
  });

  /**
   * Fires 50 refunds of 100.00 at once and returns how revision 1 of each was decided. An allowed
   * refund runs at once and changes the invoice, so the others allowed beside it find their state
   * changed when they run (state_changed, re-queued for review): the decision at proposal is what
   * the budget governs.
   */
  async function race(tenant: TestTenant, requester: ProposeInput["requester"]) {
    const settled = await Promise.allSettled(Array.from({ length: 50 }, () => refund(tenant, requester, 10_000)));
    for (const s of settled) if (s.status === "rejected") expect(String(s.reason)).toMatch(/state this approval rested on changed/);
    const outcomes = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    const first = await t.db.actionRevision.findMany({
      where: { tenantId: tenant.id, revision: 1, action: { requesterApiKeyId: requester.type === "api_key" ? requester.apiKeyId : "" } },
    });
    expect(first).toHaveLength(50);
    const decided = (effect: string) => first.filter((r) => (r.policyDecision as { effect: string }).effect === effect);
    return { outcomes, decided };
  }

  it("50 concurrent refunds of 100.00 against a 1,000.00 daily budget: exactly 10 allowed, the other 40 wait for review", async () => {
    const { outcomes, decided } = await race(review, raceKey);
    const allowed = decided("allow");
    expect(allowed).toHaveLength(10);
    expect(allowed.reduce((sum, r) => sum + Number((r.args as { amount_minor: number }).amount_minor), 0)).toBe(100_000);
    expect(decided("require_approval")).toHaveLength(40);
    expect(count(outcomes, "pending")).toBe(40);
    for (const o of outcomes.filter((x) => x.state === "pending")) expect(o.reason).toMatch(/refund-over-budget/);
  });

  it("the same race under a rule that denies: exactly 10 allowed, 40 denied with the rule's reason", async () => {
    const { outcomes, decided } = await race(deny, denyKey);
    expect(decided("allow")).toHaveLength(10);
    expect(decided("deny")).toHaveLength(40);
    expect(count(outcomes, "denied")).toBe(40);
    for (const o of outcomes.filter((x) => x.state === "denied")) expect(o).toMatchObject({ ruleId: "refund-over-budget" });
  });

  it("the race from four clients of the database, as from four processes: still exactly 10 allowed", async () => {
    // Each client judges its own batches from what it last saw: only the proposal statement, which
    // checks the totals under the budget's lock, keeps the clients from spending the same share.
    const clients: Db[] = [t.db, ...[1, 2, 3].map(() => createDb(t.url, { max: 4 }))];
    try {
      const agent = await agentOf(deny, "racer-four-clients");
      const proposeOn = (db: Db) =>
        proposeAction(db, { tenantId: deny.id, requester: agent, tool: "refund_invoice", args: { invoice_number: "INV-1044", amount_minor: 10_000, reason: "Duplicate charge" } });
      // A first call on each client, so that each remembers totals the others will move.
      for (const db of clients) expect((await proposeOn(db)).state).toBe("allowed");
      const settled = await Promise.allSettled(Array.from({ length: 46 }, (_, i) => proposeOn(clients[i % clients.length])));
      for (const s of settled) if (s.status === "rejected") expect(String(s.reason)).toMatch(/state this approval rested on changed/);
      const first = await t.db.actionRevision.findMany({ where: { tenantId: deny.id, revision: 1, action: { requesterApiKeyId: agent.type === "api_key" ? agent.apiKeyId : "" } } });
      expect(first).toHaveLength(50);
      const decided = (effect: string) => first.filter((r) => (r.policyDecision as { effect: string }).effect === effect);
      expect(decided("allow")).toHaveLength(10);
      expect(decided("deny")).toHaveLength(40);
    } finally {
      await Promise.all(clients.slice(1).map((db) => db.$disconnect()));
    }
  });

  it("a spend committed while the proposal statement waits for the budget's lock is counted by that statement", async () => {
    // The statement's snapshot predates the lock it waits for: the totals must be read after it (budget_totals is VOLATILE).
    const agent = await agentOf(deny, "lock-waiter");
    if (agent.type !== "api_key") throw new Error("expected a key");
    const [x, y] = [createDb(t.url, { max: 2 }), createDb(t.url, { max: 2 })];
    const owner = new pg.Client({ connectionString: t.ownerUrl });
    await owner.connect();
    try {
      const proposeOn = (db: Db, amountMinor: number) =>
        proposeAction(db, { tenantId: deny.id, requester: agent, tool: "refund_invoice", args: { invoice_number: "INV-1044", amount_minor: amountMinor, reason: "Duplicate charge" } });
      expect((await proposeOn(x, 10_000)).state).toBe("allowed"); // x remembers 100.00 spent
      const held = await proposeOn(y, 60_000); // a reserved 600.00 that x does not know of
      expect(held.state).toBe("pending");
      await t.ownerDb.$executeRaw`UPDATE "Action" SET status = 'rejected' WHERE id = ${held.actionId}::uuid`;
      // Another holder of the budget's lock reserves the 600.00 again, and commits only once x's statement waits for the lock.
      await owner.query("BEGIN");
      await owner.query("SELECT pg_advisory_xact_lock(hashtextextended('countersign.budget:' || $1, 0))", [`${deny.id}:refund_invoice:key:${agent.apiKeyId}`]);
      await owner.query(`UPDATE "Action" SET status = 'pending' WHERE id = $1`, [held.actionId]);
      const waiting = proposeOn(x, 50_000);
      for (let i = 0; i < 200; i++) {
        const [waiters] = await t.ownerDb.$queryRaw<Array<{ n: bigint }>>`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`;
        if (Number(waiters.n) > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      await owner.query("COMMIT");
      // 100.00 spent + 600.00 reserved + 500.00 is over 1,000.00.
      expect(await waiting).toMatchObject({ state: "denied", ruleId: "refund-over-budget", budgets: [expect.objectContaining({ usedBefore: 70_000 })] });
    } finally {
      await owner.end();
      await Promise.all([x.$disconnect(), y.$disconnect()]);
    }
  });

  it("a pending call holds its share of the budget until it is rejected; the answer says what is left", async () => {
    const agent = await agentOf(review, "reserver");
    const large = await refund(review, agent, 60_000);
    expect(large).toMatchObject({ state: "pending", reason: expect.stringMatching(/refund-large/) });
    expect(large.state === "pending" && large.budgets).toEqual([
      expect.objectContaining({ window: "24h", measure: "sum", argument: "amount_minor", by: "key", limit: 100_000, usedBefore: 0, usedAfter: 60_000 }),
    ]);
    // Without the reservation 500.00 would fit; with it, 600.00 + 500.00 is over.
    const next = await refund(review, agent, 50_000);
    expect(next).toMatchObject({ state: "pending", reason: expect.stringMatching(/refund-over-budget/) });
    if (large.state !== "pending" || next.state !== "pending") throw new Error("expected both to wait");
    for (const p of [large, next]) {
      await decideAction(t.db, { tenantId: review.id, actionId: p.actionId, verdict: "reject", note: "Not this one", payloadHash: p.payloadHash, reviewer: review.users.reviewer.member });
    }
    // Rejected calls release what they held.
    const allowed = await refund(review, agent, 40_000);
    expect(allowed).toMatchObject({ state: "allowed" });
    expect(allowed.state === "allowed" && allowed.budgets?.[0]).toMatchObject({ limit: 100_000, usedBefore: 0, usedAfter: 40_000 });
    // The API's answer says the call was allowed under the budget and how much is left.
    if (allowed.state !== "allowed") throw new Error("expected an allowed call");
    const { body } = submissionBody(allowed);
    expect(SubmitResponseSchema.parse(body)).toMatchObject({
      state: "allowed", budgets: [{ window: "24h", measure: "sum", by: "key", used: 40_000, limit: 100_000, remaining: 60_000 }],
    });
  });

  it("another key's spend is not counted under \"key\"", async () => {
    const spender = await agentOf(review, "spender");
    const other = await agentOf(review, "other");
    expect((await refund(review, spender, 50_000)).state).toBe("allowed");
    expect((await refund(review, spender, 50_000)).state).toBe("allowed");
    expect(await refund(review, spender, 1)).toMatchObject({ state: "pending", reason: expect.stringMatching(/refund-over-budget/) });
    const fresh = await refund(review, other, 50_000);
    expect(fresh).toMatchObject({ state: "allowed" });
    expect(fresh.state === "allowed" && fresh.budgets?.[0]).toMatchObject({ usedBefore: 0, usedAfter: 50_000 });
  });

  it("an edited call is judged again under the budget, without counting what it replaces", async () => {
    const agent = await agentOf(review, "edited");
    expect((await refund(review, agent, 40_000)).state).toBe("allowed");
    const large = await refund(review, agent, 60_000);
    if (large.state !== "pending") throw new Error("expected the large refund to wait");
    // 400.00 spent + 600.00 reserved: the budget is full. Cut to 500.00, the edit is judged with
    // 400.00 spent by the others (its own 600.00 is what it replaces): 900.00 fits.
    const edited = await editAction(t.db, {
      tenantId: review.id, actionId: large.actionId, editor: review.users.reviewer.member, payloadHash: large.payloadHash,
      args: { invoice_number: "INV-1044", amount_minor: 50_000, reason: "Duplicate charge" },
    });
    expect(edited.status).toBe("approved");
    const revision = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: large.actionId, revision: 2 } });
    expect(revision.policyDecision).toMatchObject({
      ruleId: "refund-within-budget", budgets: [{ by: "key", limit: 100_000, usedBefore: 40_000, usedAfter: 90_000 }],
    });
    // And the budget now holds 900.00: 200.00 more is over it.
    const over = await refund(review, agent, 20_000);
    expect(over).toMatchObject({ state: "pending", reason: expect.stringMatching(/refund-over-budget/) });
    // The reviewer sees where the budget stands in the action's facts, this call included.
    const viewer = { tenantId: review.id, userId: review.users.reviewer.id, roles: review.users.reviewer.roles };
    const detail = await loadActionDetail(t.db, viewer, over.actionId);
    if (!detail) throw new Error("the action was not found");
    expect(renderToStaticMarkup(createElement(ActionFacts, { action: detail }))).toContain("last 24h: 1,100.00 of 1,000.00 used by this key");
  });

  it("an MCP call allowed within a budget says so, and what is left, in words and in _meta", async () => {
    const { apiKey } = await createApiKey(t.db, { tenantId: review.id, name: "mcp-agent", allowedTools: ["refund_invoice"], createdById: review.users.admin.id });
    const result = await callGatewayTool(t.db, {
      tenantId: review.id, key: { id: apiKey.id, label: `api:${apiKey.name}`, prefix: apiKey.prefix, allowedTools: apiKey.allowedTools },
      tool: "refund_invoice", args: { invoice_number: "INV-1043", amount_minor: 30_000, reason: "Duplicate charge" },
      untrustedValues: [], signal: new AbortController().signal, origin: "http://localhost:3000",
    });
    expect(result.isError).toBe(false);
    expect(result.content.at(-1)).toEqual({ type: "text", text: "Allowed within the policy's budget: last 24h: 300.00 of 1,000.00 used by this key." });
    expect(result._meta?.["countersign/action"]).toMatchObject({ state: "succeeded", budgets: [{ by: "key", used: 30_000, limit: 100_000, remaining: 70_000 }] });
  });
});
