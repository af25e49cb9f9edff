import { describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import type { TestTenant } from "@/tests/factories";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { proposeAction, type ProposalOutcome, type ProposeInput } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { cancelAction } from "@/lib/approvals/cancel-action";
import { loadActionDetail } from "@/lib/review/load-action-detail";
import { submissionBody } from "@/lib/api/submission-response";
import { SubmitResponseSchema } from "@/lib/api/schemas";
import { callGatewayTool } from "@/lib/mcp/call-gateway-tool";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import type { Policy } from "@/lib/policy/policy-document";
import type { GrantTerms } from "@/lib/grants/grant-terms";

// A budgeted call a grant allows is judged with the budget and takes the grant in the budget's
// transaction (lib/approvals/budgeted-proposals.ts; docs/DESIGN.md, "Standing grants").

const SPENT = 'budget.window("24h").sum("refund_invoice", "amount_minor", "key")';
/** 1,000.00 a day per key; every refund is reviewed, by another rule once over the budget. */
const policyOf = (overBudget: "require_approval" | "deny"): Policy => ({
  ...DEFAULT_POLICY,
  tools: {
    ...DEFAULT_POLICY.tools,
    refund_invoice: {
      rules: [
        { id: "refund-over-budget", when: `${SPENT} + args.amount_minor > 100000`, effect: overBudget, reason: "Over this key's daily refund budget" },
        { id: "refund-reviewed", effect: "require_approval", reason: "Every refund is reviewed" },
      ],
    },
  },
});

const t = setUpTestDatabase();
const review = setUpTestTenant(t, { policy: policyOf("require_approval") });
const deny = setUpTestTenant(t, { policy: policyOf("deny") });

type Agent = Extract<ProposeInput["requester"], { type: "api_key" }>;

async function agentOf(tenant: TestTenant, name: string): Promise<Agent> {
  const { apiKey } = await createApiKey(t.db, { tenantId: tenant.id, name, allowedTools: ["refund_invoice"], createdById: tenant.users.admin.id });
  return { type: "api_key", apiKeyId: apiKey.id, label: `api:${apiKey.name}` };
}

const refund = (tenant: TestTenant, agent: Agent, amountMinor: number) =>
  proposeAction(t.db, { tenantId: tenant.id, requester: agent, tool: "refund_invoice", args: { invoice_number: "INV-1044", amount_minor: amountMinor, reason: "Duplicate charge" } });

function pendingOf(outcome: ProposalOutcome) {
  if (outcome.state !== "pending") throw new Error(`expected pending, got ${outcome.state}`);
  return outcome;
}

/**
 * A grant from a refund approved with `terms`; the agent then withdraws that refund, so the
 * budget starts empty (a cancelled call releases its share).
 */
async function grantOf(tenant: TestTenant, agent: Agent, terms: GrantTerms) {
  const source = pendingOf(await refund(tenant, agent, 10_000));
  const decided = await decideAction(t.db, {
    tenantId: tenant.id, actionId: source.actionId, verdict: "approve", payloadHash: source.payloadHash, reviewer: tenant.users.reviewer.member, grant: terms,
  });
  expect(decided).toMatchObject({ status: "approved", grant: { id: expect.any(String) } });
  await cancelAction(t.db, { tenantId: tenant.id, actionId: source.actionId, apiKeyId: agent.apiKeyId, actor: { type: "api_key", id: agent.apiKeyId, label: agent.label } });
  return { sourceId: source.actionId, grant: await t.db.grant.findUniqueOrThrow({ where: { id: decided.grant!.id } }) };
}

const REFUNDS: GrantTerms = {
  constraint: "args.amount_minor <= 100000", description: "refunds of at most 1,000.00", maxCalls: 20, totalArgument: null, maxTotal: null, ttlSeconds: 3600,
};

type Decided = { effect: string; ruleId: string | null; grant?: { id: string }; budgets?: Array<{ usedAfter: number }> };

describe("a standing grant of a budgeted tool", () => {
  it("50 concurrent refunds of 100.00 under a grant of 20 calls and a 1,000.00 budget: exactly 10 allowed, the other 40 wait", async () => {
    const agent = await agentOf(review, "racer");
    const { sourceId, grant } = await grantOf(review, agent, REFUNDS);
    const settled = await Promise.allSettled(Array.from({ length: 50 }, () => refund(review, agent, 10_000)));
    // An allowed refund runs at once and changes the invoice: another run beside it may find its state changed.
    for (const s of settled) if (s.status === "rejected") expect(String(s.reason)).toMatch(/state this approval rested on changed/);
    const first = await t.db.actionRevision.findMany({
      where: { tenantId: review.id, revision: 1, action: { requesterApiKeyId: agent.apiKeyId, id: { not: sourceId } } },
    });
    expect(first).toHaveLength(50);
    const decisions = first.map((r) => r.policyDecision as Decided);
    const granted = decisions.filter((d) => d.effect === "allow");
    expect(granted).toHaveLength(10);
    for (const d of granted) expect(d.grant).toEqual({ id: grant.id });
    expect(Math.max(...granted.map((d) => d.budgets![0].usedAfter))).toBe(100_000);
    const waiting = decisions.filter((d) => d.effect === "require_approval");
    expect(waiting).toHaveLength(40);
    for (const d of waiting) expect(d.ruleId).toBe("refund-over-budget");
    const outcomes = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    expect(outcomes.filter((o) => o.state === "pending")).toHaveLength(40);
    expect(await t.db.grant.findUniqueOrThrow({ where: { id: grant.id } })).toMatchObject({ usedCalls: 10, maxCalls: 20 });
    expect(await t.db.auditEvent.count({ where: { tenantId: review.id, type: "action.proposed", data: { path: ["grant", "id"], equals: grant.id } } })).toBe(10);
  });

  it("under a budget that denies when over, a call the grant covers is denied and spends none of the grant", async () => {
    const agent = await agentOf(deny, "denied");
    const { grant } = await grantOf(deny, agent, REFUNDS);
    expect(await refund(deny, agent, 90_000)).toMatchObject({ state: "allowed", grant: { id: grant.id, callsLeft: 19 } });
    expect(await refund(deny, agent, 20_000)).toMatchObject({ state: "denied", ruleId: "refund-over-budget" });
    expect(await t.db.grant.findUniqueOrThrow({ where: { id: grant.id } })).toMatchObject({ usedCalls: 1 });
    // What still fits the budget the grant allows.
    expect(await refund(deny, agent, 10_000)).toMatchObject({ state: "allowed", grant: { id: grant.id, callsLeft: 18 } });
  });

  it("the page offers a grant for a budgeted call, the vote makes it, and the API's and MCP's answers carry the budget and the grant", async () => {
    const agent = await agentOf(review, "voted");
    const source = pendingOf(await refund(review, agent, 30_000));
    const viewer = { tenantId: review.id, userId: review.users.reviewer.id, roles: review.users.reviewer.roles };
    const draft = (await loadActionDetail(t.db, viewer, source.actionId))?.grantDraft;
    expect(draft).toMatchObject({ constraint: "args.amount_minor <= 30000", maxCalls: 10, totalArgument: "amount_minor" });
    const { maxTtlSeconds: _cap, ...terms } = draft!;
    const decided = await decideAction(t.db, {
      tenantId: review.id, actionId: source.actionId, verdict: "approve", payloadHash: source.payloadHash, reviewer: review.users.reviewer.member, grant: terms,
    });
    expect(decided).toMatchObject({ status: "approved", grant: { id: expect.any(String) } });
    const grant = await t.db.grant.findUniqueOrThrow({ where: { id: decided.grant!.id } });
    expect(grant).toMatchObject({ status: "active", tool: "refund_invoice", ruleId: "refund-reviewed", apiKeyId: agent.apiKeyId });
    // The approved source holds 300.00 of the budget; the next call is the grant's and the budget's.
    const allowed = await refund(review, agent, 30_000);
    if (allowed.state !== "allowed") throw new Error(`expected allowed, got ${allowed.state}`);
    expect(SubmitResponseSchema.parse(submissionBody(allowed).body)).toMatchObject({
      state: "allowed",
      budgets: [{ window: "24h", measure: "sum", by: "key", used: 60_000, limit: 100_000, remaining: 40_000 }],
      grant: { id: grant.id, callsLeft: 9, totalLeft: 270_000 },
    });
    // Through MCP, said in words and in _meta: the grant and the budget.
    const key = await t.db.apiKey.findUniqueOrThrow({ where: { id: agent.apiKeyId } });
    const mcp = await callGatewayTool(t.db, {
      tenantId: review.id, key: { id: key.id, label: agent.label, prefix: key.prefix, allowedTools: key.allowedTools },
      tool: "refund_invoice", args: { invoice_number: "INV-1044", amount_minor: 30_000, reason: "Duplicate charge" },
      untrustedValues: [], signal: new AbortController().signal, origin: "http://localhost:3000",
    });
    expect(mcp.isError).toBe(false);
    expect(mcp.content.slice(-2)).toEqual([
      { type: "text", text: expect.stringContaining(`Allowed without review by standing grant ${grant.id}; it allows 8 more calls`) },
      { type: "text", text: expect.stringMatching(/^Allowed within the policy's budget: .*900\.00 of 1,000\.00/) },
    ]);
    expect(mcp._meta?.["countersign/action"]).toMatchObject({ grant: { id: grant.id, callsLeft: 8 }, budgets: [{ used: 90_000, remaining: 10_000 }] });
    expect(await refund(review, agent, 30_000)).toMatchObject({ state: "pending", reason: expect.stringMatching(/refund-over-budget/) });
    expect(await t.db.grant.findUniqueOrThrow({ where: { id: grant.id } })).toMatchObject({ usedCalls: 2, usedTotal: 60_000n });
  });
});
