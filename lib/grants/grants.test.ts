import { describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import type { TestTenant } from "@/tests/factories";
import { refusal } from "@/tests/refusal";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { proposeAction, type ProposalOutcome, type ProposeInput } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { revokeGrant } from "@/lib/grants/revoke-grants";
import { setAgentsPause } from "@/lib/agents-pause/set-agents-pause";
import type { GrantTerms } from "@/lib/grants/grant-terms";
import { submissionBody } from "@/lib/api/submission-response";
import { SubmitResponseSchema } from "@/lib/api/schemas";
import { callGatewayTool } from "@/lib/mcp/call-gateway-tool";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import { loadActionDetail } from "@/lib/review/load-action-detail";
import { startTask } from "@/lib/tasks/start-task";
import { holdTask } from "@/tests/factories";

// Standing grants are taken by the proposal's own statement (write-proposals.ts; docs/DESIGN.md,
// "Standing grants"). These tests race real PostgreSQL and check what a grant lets through.

const t = setUpTestDatabase();
const a = setUpTestTenant(t);
// Emails that always wait for review, whose rule caps grants at 30 minutes.
const capped = setUpTestTenant(t, {
  policy: {
    ...DEFAULT_POLICY,
    tools: { ...DEFAULT_POLICY.tools, send_email: { rules: [{ id: "send-email-capped", effect: "require_approval", grantMaxTtl: "30m", reason: "Every email is reviewed" }] } },
  },
});

type Agent = Extract<ProposeInput["requester"], { type: "api_key" }>;

async function agentOf(tenant: TestTenant, name: string, createdById = tenant.users.admin.id): Promise<Agent> {
  const { apiKey } = await createApiKey(t.db, { tenantId: tenant.id, name, allowedTools: ["send_email", "refund_invoice"], createdById });
  return { type: "api_key", apiKeyId: apiKey.id, label: `api:${apiKey.name}` };
}

/** An email outside the tenant's and the customer's domains: the default policy sends it to review. */
const email = (tenant: TestTenant, agent: Agent, to = "ops@partner.example") =>
  proposeAction(t.db, { tenantId: tenant.id, requester: agent, tool: "send_email", args: { to, subject: "Weekly report", body: "Attached." } });

const refund = (tenant: TestTenant, agent: Agent, amountMinor: number, invoice = "INV-1043") =>
  proposeAction(t.db, { tenantId: tenant.id, requester: agent, tool: "refund_invoice", args: { invoice_number: invoice, amount_minor: amountMinor, reason: "Duplicate charge" } });

const PARTNER: GrantTerms = {
  constraint: 'emailDomains(args).all(d, d == "partner.example")', description: "every recipient at partner.example",
  maxCalls: 10, totalArgument: null, maxTotal: null, ttlSeconds: 3600,
};
const SMALL_REFUNDS: GrantTerms = {
  constraint: "args.amount_minor <= 3000", description: "refunds of at most 30.00", maxCalls: null, totalArgument: "amount_minor", maxTotal: 10_000, ttlSeconds: 3600,
};

function pendingOf(outcome: ProposalOutcome) {
  if (outcome.state !== "pending") throw new Error(`expected pending, got ${outcome.state}`);
  return outcome;
}

/** Approves a pending call with grant terms, by one reviewer (quorum 1), and returns the grant made. */
async function grantFrom(tenant: TestTenant, outcome: ProposalOutcome, terms: GrantTerms) {
  const p = pendingOf(outcome);
  const decided = await decideAction(t.db, {
    tenantId: tenant.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: tenant.users.reviewer.member, grant: terms,
  });
  expect(decided).toMatchObject({ status: "approved", grant: { id: expect.any(String) } });
  return t.db.grant.findUniqueOrThrow({ where: { id: decided.grant!.id } });
}

const count = (outcomes: ProposalOutcome[], state: ProposalOutcome["state"]) => outcomes.filter((o) => o.state === state).length;

describe("a standing grant taken by the proposal's statement", () => {
  it("50 concurrent calls against a grant of 10 calls: exactly 10 allowed, each audited with the grant, the other 40 wait for review", async () => {
    const agent = await agentOf(a, "mailer");
    const grant = await grantFrom(a, await email(a, agent), PARTNER);
    expect(grant).toMatchObject({ status: "active", maxCalls: 10, usedCalls: 0, apiKeyId: agent.apiKeyId, tool: "send_email" });
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => email(a, agent)));
    expect(count(outcomes, "allowed")).toBe(10);
    expect(count(outcomes, "pending")).toBe(40);
    const left = outcomes.flatMap((o) => (o.state === "allowed" && o.grant ? [o.grant.callsLeft] : [])).sort((x, y) => x! - y!);
    expect(left).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect((await t.db.grant.findUniqueOrThrow({ where: { id: grant.id } })).usedCalls).toBe(10);
    const audited = await t.db.auditEvent.findMany({ where: { tenantId: a.id, type: "action.proposed", data: { path: ["grant", "id"], equals: grant.id } } });
    expect(audited).toHaveLength(10);
    // Another key's calls are not covered, nor another domain.
    expect((await email(a, await agentOf(a, "other-mailer"))).state).toBe("pending");
  });

  it("50 concurrent refunds of 30.00 against a total of 100.00: three allowed, never over the total", async () => {
    const agent = await agentOf(a, "refunder");
    const grant = await grantFrom(a, await refund(a, agent, 3000), SMALL_REFUNDS);
    const settled = await Promise.allSettled(Array.from({ length: 50 }, () => refund(a, agent, 3000)));
    // Refunds run at once and change the invoice, so one allowed beside another may find its state changed when it runs.
    for (const s of settled) if (s.status === "rejected") expect(String(s.reason)).toMatch(/state this approval rested on changed/);
    const taken = await t.db.auditEvent.count({ where: { tenantId: a.id, type: "action.proposed", data: { path: ["grant", "id"], equals: grant.id } } });
    expect(taken).toBe(3);
    expect(await t.db.grant.findUniqueOrThrow({ where: { id: grant.id } })).toMatchObject({ usedCalls: 3, usedTotal: 9000n });
  });

  it("a call one cent over the constraint, or over what is left of the total, waits for review", async () => {
    const agent = await agentOf(a, "cents");
    const grant = await grantFrom(a, await refund(a, agent, 3000), { ...SMALL_REFUNDS, maxTotal: 5000 });
    expect(await refund(a, agent, 3001)).toMatchObject({ state: "pending" });
    const allowed = await refund(a, agent, 3000);
    expect(allowed).toMatchObject({ state: "allowed", grant: { id: grant.id, callsLeft: null, totalLeft: 2000 } });
    // Its page names the grant it ran under, as its revision records it.
    const viewer = { tenantId: a.id, userId: a.users.reviewer.id, roles: a.users.reviewer.roles };
    const detail = await loadActionDetail(t.db, viewer, allowed.actionId);
    expect(detail?.current.policyDecision).toMatchObject({ effect: "allow", grant: { id: grant.id } });
    expect(detail?.grants).toEqual([expect.objectContaining({ id: grant.id, total: "amount: 30.00 of 50.00", state: "active" })]);
    expect(await refund(a, agent, 2001)).toMatchObject({ state: "pending" });
    expect(await refund(a, agent, 2000)).toMatchObject({ state: "allowed", grant: { totalLeft: 0 } });
  });

  it("a revoked grant, one ended by the stop button, and an expired one allow nothing more", async () => {
    const agent = await agentOf(a, "revoked");
    const revoked = await grantFrom(a, await email(a, agent), PARTNER);
    expect((await email(a, agent)).state).toBe("allowed");
    await revokeGrant(t.db, { tenantId: a.id, grantId: revoked.id, actor: { type: "user", id: a.users.reviewer2.id, label: a.users.reviewer2.email } });
    expect((await email(a, agent)).state).toBe("pending");
    expect(await t.db.grant.findUniqueOrThrow({ where: { id: revoked.id } })).toMatchObject({ status: "revoked", revokedById: a.users.reviewer2.id, usedCalls: 1 });
    // An auditor may not revoke.
    const stopped = await grantFrom(a, await email(a, agent), PARTNER);
    expect(await refusal(revokeGrant(t.db, { tenantId: a.id, grantId: stopped.id, actor: { type: "user", id: a.users.auditor.id, label: "auditor" } })))
      .toMatchObject({ code: "forbidden" });
    const admin = { type: "user" as const, id: a.users.admin.id, label: a.users.admin.email };
    await setAgentsPause(t.db, { tenantId: a.id, paused: true, reason: "incident", actor: admin });
    await setAgentsPause(t.db, { tenantId: a.id, paused: false, actor: admin });
    expect(await t.db.grant.findUniqueOrThrow({ where: { id: stopped.id } })).toMatchObject({ status: "revoked" });
    expect((await email(a, agent)).state).toBe("pending");

    // While agents are stopped, an approval makes no grant (the action is approved alone).
    await setAgentsPause(t.db, { tenantId: a.id, paused: true, reason: "incident", actor: admin });
    const during = await email(a, agent).catch((error: unknown) => error);
    expect(during).toMatchObject({ code: "agents_paused" });
    await setAgentsPause(t.db, { tenantId: a.id, paused: false, actor: admin });
    const held = pendingOf(await email(a, agent));
    await setAgentsPause(t.db, { tenantId: a.id, paused: true, reason: "incident", actor: admin });
    expect(await decideAction(t.db, {
      tenantId: a.id, actionId: held.actionId, verdict: "approve", payloadHash: held.payloadHash, reviewer: a.users.reviewer.member, grant: PARTNER,
    })).toMatchObject({ status: "approved", grant: null });
    await setAgentsPause(t.db, { tenantId: a.id, paused: false, actor: admin });
    expect(await t.db.grant.count({ where: { sourceActionId: held.actionId } })).toBe(0);

    const expiring = await grantFrom(a, await email(a, agent), PARTNER);
    expect((await email(a, agent)).state).toBe("allowed");
    await t.db.grant.update({ where: { id: expiring.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await email(a, agent)).state).toBe("pending");
  });

  it("a call the policy denies stays denied under a grant, and a call of a stricter rule still waits for review", async () => {
    const agent = await agentOf(a, "wide");
    await grantFrom(a, await refund(a, agent, 3000), { ...SMALL_REFUNDS, constraint: "args.amount_minor > 0", maxTotal: 100_000_000 });
    expect(await refund(a, agent, 6_000_000)).toMatchObject({ state: "denied", ruleId: "refund-over-limit" });
    // Over 1,000.00 two reviewers must approve (rule refund-large): a one-reviewer grant does not cover it.
    expect(await refund(a, agent, 200_000, "INV-1044")).toMatchObject({ state: "pending", quorum: 2 });
  });

  it("a grant approved by the key's own creator is refused, as the action's vote would be; nothing is granted", async () => {
    await t.db.membership.updateMany({ where: { tenantId: a.id, userId: a.users.admin.id }, data: { roles: ["admin", "reviewer"] } });
    const agent = await agentOf(a, "own-key", a.users.admin.id);
    const p = pendingOf(await email(a, agent));
    const refused = await refusal(decideAction(t.db, {
      tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: { ...a.users.admin.member, roles: ["admin", "reviewer"] }, grant: PARTNER,
    }));
    expect(refused).toMatchObject({ code: "self_approval", status: 403 });
    expect(await t.db.grant.count({ where: { sourceActionId: p.actionId } })).toBe(0);
    expect((await email(a, agent)).state).toBe("pending");
  });

  it("refuses terms whose constraint does not cover the action itself, and a grant longer than the rule allows", async () => {
    const agent = await agentOf(a, "terms");
    const p = pendingOf(await email(a, agent));
    const vote = (grant: unknown) => decideAction(t.db, {
      tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: a.users.reviewer.member, grant,
    });
    expect(await refusal(vote({ ...PARTNER, constraint: 'emailDomains(args).all(d, d == "other.example")' }))).toMatchObject({ code: "invalid_grant" });
    expect(await refusal(vote({ ...PARTNER, ttlSeconds: 25 * 3600 }))).toMatchObject({ code: "invalid_grant" });
    // Evaluated in the request thread: no regex, which may backtrack without end.
    expect(await refusal(vote({ ...PARTNER, constraint: 'args.to.matches("^(a+)+$") || true' }))).toMatchObject({ code: "invalid_grant", message: expect.stringMatching(/matches/) });
    expect(await t.db.decision.count({ where: { actionId: p.actionId } })).toBe(0);
  });

  it("the API's and MCP's answers say a call was allowed by a grant, and what is left of it", async () => {
    const { apiKey } = await createApiKey(t.db, { tenantId: a.id, name: "answers", allowedTools: ["send_email"], createdById: a.users.admin.id });
    const agent: Agent = { type: "api_key", apiKeyId: apiKey.id, label: `api:${apiKey.name}` };
    const grant = await grantFrom(a, await email(a, agent), { ...PARTNER, maxCalls: 3 });
    const allowed = await email(a, agent);
    if (allowed.state !== "allowed") throw new Error(`expected allowed, got ${allowed.state}`);
    expect(SubmitResponseSchema.parse(submissionBody(allowed).body)).toMatchObject({
      state: "allowed", grant: { id: grant.id, callsLeft: 2, totalLeft: null, expiresAt: grant.expiresAt.toISOString() },
    });
    const result = await callGatewayTool(t.db, {
      tenantId: a.id, key: { id: apiKey.id, label: agent.label, prefix: apiKey.prefix, allowedTools: apiKey.allowedTools },
      tool: "send_email", args: { to: "ops@partner.example", subject: "Weekly report", body: "Attached." },
      untrustedValues: [], signal: new AbortController().signal, origin: "http://localhost:3000",
    });
    expect(result.isError).toBe(false);
    expect(result.content.at(-1)).toEqual({
      type: "text", text: `Allowed without review by standing grant ${grant.id}; it allows 1 more call until ${grant.expiresAt.toISOString()}.`,
    });
    expect(result._meta?.["countersign/action"]).toMatchObject({ grant: { id: grant.id, callsLeft: 1, totalLeft: null } });
  });

  it("holds a grant to its rule's cap: longer is refused by the vote, and the page offers no more than the cap", async () => {
    const agent = await agentOf(capped, "capped");
    const p = pendingOf(await email(capped, agent));
    const viewer = { tenantId: capped.id, userId: capped.users.reviewer.id, roles: capped.users.reviewer.roles };
    expect((await loadActionDetail(t.db, viewer, p.actionId))?.grantDraft).toMatchObject({
      constraint: 'emailDomains(args).all(d, d in ["partner.example"])', ttlSeconds: 1800, maxCalls: 10,
    });
    const vote = (ttlSeconds: number) => decideAction(t.db, {
      tenantId: capped.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: capped.users.reviewer.member,
      grant: { ...PARTNER, ttlSeconds },
    });
    expect(await refusal(vote(3600))).toMatchObject({ code: "grant_not_allowed", status: 403 });
    expect(await vote(1800)).toMatchObject({ status: "approved", grant: { id: expect.any(String) } });
  });

  it("a grant whose approver lost the standing to decide allows nothing more, and does again once it is given back", async () => {
    const agent = await agentOf(a, "demoted");
    await grantFrom(a, await email(a, agent), PARTNER);
    expect((await email(a, agent)).state).toBe("allowed");
    const membership = { tenantId: a.id, userId: a.users.reviewer.id };
    await t.db.membership.updateMany({ where: membership, data: { roles: ["auditor"] } });
    try {
      expect((await email(a, agent)).state).toBe("pending");
    } finally {
      await t.db.membership.updateMany({ where: membership, data: { roles: ["reviewer"] } });
    }
    expect((await email(a, agent)).state).toBe("allowed");
  });

  it("a grant from a task's call covers that task's calls like it, not another task's", async () => {
    const taskOf = async () => {
      const { taskId } = await startTask(t.db, {
        tenantId: a.id, requester: { userId: a.users.requester.id, label: a.users.requester.email }, instruction: "Send the weekly report", planner: "offline",
      });
      return { taskId, taskLeaseOwner: await holdTask(t.db, taskId) };
    };
    const mine = await taskOf();
    const other = await taskOf();
    const send = (task: { taskId: string; taskLeaseOwner: string }, call: string) => proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "send_email", args: { to: "ops@partner.example", subject: "Weekly report", body: "Attached." },
      ...task, agentCallId: call,
    });
    const grant = await grantFrom(a, await send(mine, "call-1"), PARTNER);
    expect(grant).toMatchObject({ taskId: mine.taskId, apiKeyId: null });
    expect(await send(mine, "call-2")).toMatchObject({ state: "allowed", grant: { id: grant.id, callsLeft: 9 } });
    expect((await send(other, "call-1")).state).toBe("pending");
  });
});
