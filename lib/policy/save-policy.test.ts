import { describe, expect, it } from "vitest";
import { Client } from "pg";
import { queuedBehind } from "@/tests/action-lock";
import { refusal } from "@/tests/refusal";
import { createTestTenant } from "@/tests/factories";
import { AppError } from "@/lib/errors";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import { savePolicy } from "@/lib/policy/save-policy";
import { largePolicy } from "@/tests/policies";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);

const actor = () => ({ type: "user" as const, id: a.users.admin.id, label: a.users.admin.email });

describe("savePolicy", () => {
  it("writes version n+1 with its audit event, and refuses (audited) a save from a stale version", async () => {
    expect(await savePolicy(t.db, { tenantId: a.id, baseVersion: 1, document: DEFAULT_POLICY, comment: "  tighter refunds ", actor: actor() })).toEqual({ version: 2 });
    const saved = await t.db.toolPolicy.findFirstOrThrow({ where: { tenantId: a.id, version: 2 } });
    expect(saved).toMatchObject({ comment: "tighter refunds", createdById: a.users.admin.id, document: { ...DEFAULT_POLICY, version: 2 } });
    const event = await t.db.auditEvent.findFirstOrThrow({ where: { tenantId: a.id, type: "policy.saved" } });
    expect(event).toMatchObject({
      actorType: "user", actorId: a.users.admin.id, actorLabel: a.users.admin.email, outcome: "ok", subjectType: "policy", subjectId: saved.id,
      data: { version: 2, baseVersion: 1, comment: "tighter refunds", tools: Object.keys(DEFAULT_POLICY.tools).sort() },
    });

    const stale = await refusal(savePolicy(t.db, { tenantId: a.id, baseVersion: 1, document: DEFAULT_POLICY, actor: actor() }));
    expect(stale).toMatchObject({ code: "stale_policy", status: 409 });
    expect(await t.db.toolPolicy.count({ where: { tenantId: a.id } })).toBe(2);
    expect(await t.db.auditEvent.findFirstOrThrow({ where: { tenantId: a.id, type: "policy.save_refused" } })).toMatchObject({
      outcome: "refused", subjectId: null, data: { baseVersion: 1, reason: "stale_base_version" },
    });
    expect(await t.db.auditEvent.count({ where: { tenantId: a.id, type: "policy.saved" } })).toBe(1);
  });

  it("saves exactly one of several concurrent edits of the same version", async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => savePolicy(t.db, { tenantId: a.id, baseVersion: 2, document: DEFAULT_POLICY, comment: `edit ${i}`, actor: actor() })),
    );
    expect(results.filter((r) => r.status === "fulfilled").map((r) => r.value)).toEqual([{ version: 3 }]);
    expect(results.filter((r) => r.status === "rejected").map((r) => (r.reason as AppError).code)).toEqual(Array(5).fill("stale_policy"));
    expect(await t.db.toolPolicy.count({ where: { tenantId: a.id, version: 3 } })).toBe(1);
    expect(await t.db.auditEvent.count({ where: { tenantId: a.id, type: "policy.saved" } })).toBe(2);
  });
});

describe("savePolicy against the tenant's tools", () => {
  it("refuses (audited) a rule for a misspelt tool and a condition reading an argument the tool does not have", async () => {
    const before = await t.db.toolPolicy.count({ where: { tenantId: a.id } });
    const document = {
      ...DEFAULT_POLICY,
      tools: { ...DEFAULT_POLICY.tools, run_pyhton: { rules: [{ id: "py", effect: "deny", reason: "r" }] }, refund_invoice: { rules: [{ id: "big", when: "args.amount > 1", effect: "deny", reason: "r" }] } },
    };
    const e = await refusal(savePolicy(t.db, { tenantId: a.id, baseVersion: 3, document, actor: actor() }));
    expect(e).toMatchObject({ code: "invalid_policy", status: 400 });
    expect(await t.db.toolPolicy.count({ where: { tenantId: a.id } })).toBe(before);
    const refused = await t.db.auditEvent.findFirstOrThrow({ where: { tenantId: a.id, type: "policy.save_refused", data: { path: ["reason"], equals: "invalid" } } });
    expect((refused.data as { errors: string[] }).errors).toEqual([
      expect.stringMatching(/^tools\.refund_invoice\.rules\.0\.when: Rule "big": args\.amount is not an argument/),
      expect.stringMatching(/^tools\.run_pyhton: There is no tool named run_pyhton/),
    ]);
  });
});

describe("savePolicy past the compute pool's budget", () => {
  it("refuses (audited) a policy whose checks need more CPU than an item may have, saving nothing", async () => {
    const before = await t.db.toolPolicy.count({ where: { tenantId: a.id } });
    const latest = await t.db.toolPolicy.findFirstOrThrow({ where: { tenantId: a.id }, orderBy: { version: "desc" } });
    // The same document is saved at the default budget below: it is refused for its cost, not its content.
    process.env.COUNTERSIGN_COMPUTE_BUDGET_MS = "5";
    try {
      const e = await refusal(savePolicy(t.db, { tenantId: a.id, baseVersion: latest.version, document: largePolicy(), actor: actor() }));
      expect(e).toMatchObject({ code: "too_complex", status: 422, message: expect.stringContaining("The policy needed more than its 5 ms budget") });
    } finally {
      delete process.env.COUNTERSIGN_COMPUTE_BUDGET_MS;
    }
    expect(await t.db.toolPolicy.count({ where: { tenantId: a.id } })).toBe(before);
    expect(await t.db.auditEvent.findFirstOrThrow({ where: { tenantId: a.id, type: "policy.save_refused", data: { path: ["reason"], equals: "too_complex" } } })).toMatchObject({
      outcome: "refused", data: { baseVersion: latest.version, reason: "too_complex" },
    });
    expect(await savePolicy(t.db, { tenantId: a.id, baseVersion: latest.version, document: largePolicy(), actor: actor() })).toEqual({ version: latest.version + 1 });
  });
});

describe("savePolicy by someone who is no longer an admin", () => {
  const latestOf = async (tenantId: string) => (await t.db.toolPolicy.findFirstOrThrow({ where: { tenantId }, orderBy: { version: "desc" } })).version;
  const expectRefusedAndUnsaved = async (tenantId: string, userId: string, error: unknown, versionBefore: number) => {
    expect(error).toMatchObject({ code: "forbidden", status: 403, message: "Only admins may save the policy, and you are no longer an admin here." });
    expect(await latestOf(tenantId)).toBe(versionBefore);
    expect(await t.db.auditEvent.count({ where: { tenantId, type: "policy.saved" } })).toBe(0);
    expect(await t.db.auditEvent.findFirstOrThrow({ where: { tenantId, type: "policy.save_refused" } })).toMatchObject({
      actorId: userId, outcome: "refused", data: { baseVersion: versionBefore, reason: "not_admin" },
    });
  };

  it("saves nothing for a member who is not an admin (refused 403, audited)", async () => {
    const c = await createTestTenant(t.db);
    // The reviewer stands for an admin demoted after their request passed the boundary.
    const formerAdmin = { type: "user" as const, id: c.users.reviewer.id, label: c.users.reviewer.email };
    const e = await refusal(savePolicy(t.db, { tenantId: c.id, baseVersion: 1, document: DEFAULT_POLICY, actor: formerAdmin }));
    await expectRefusedAndUnsaved(c.id, c.users.reviewer.id, e, 1);
  });

  it("is refused when the admin's demotion commits while the save waits for their membership (real concurrency against PostgreSQL)", async () => {
    const c = await createTestTenant(t.db);
    const admin = { type: "user" as const, id: c.users.admin.id, label: c.users.admin.email };
    // The demotion is under way (the role change holds the admin's membership row) when the save,
    // already past the boundary, reaches its statement.
    const demotion = new Client({ connectionString: t.url });
    await demotion.connect();
    let outcome: { error: unknown } | { saved: unknown };
    try {
      await demotion.query("BEGIN");
      await demotion.query(`UPDATE "Membership" SET roles = '{reviewer}' WHERE "tenantId" = $1 AND "userId" = $2`, [c.id, c.users.admin.id]);
      let settled = false;
      const saving = savePolicy(t.db, { tenantId: c.id, baseVersion: 1, document: DEFAULT_POLICY, actor: admin })
        .then((saved) => ({ saved }), (error: unknown) => ({ error }))
        .finally(() => (settled = true));
      // The save waits for the demotion's lock on the membership (a save that settles first did not).
      await expect.poll(async () => settled || (await queuedBehind(demotion)) > 0, { timeout: 30_000 }).toBe(true);
      expect(settled).toBe(false);
      await demotion.query("COMMIT");
      outcome = await saving;
    } finally {
      await demotion.end();
    }
    expect(outcome).toHaveProperty("error");
    await expectRefusedAndUnsaved(c.id, c.users.admin.id, "error" in outcome ? outcome.error : null, 1);
  });
});
