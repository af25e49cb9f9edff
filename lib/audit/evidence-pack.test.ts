import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { unzipSync, strFromU8 } from "fflate";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestTenant } from "@/tests/factories";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { proposeAction } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { auditKeys } from "@/lib/audit/audit-keys";
import { buildEvidencePack, EVIDENCE_FILES, zipEvidencePack } from "@/lib/audit/evidence-pack";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);
const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  const outcome = await proposeAction(t.db, {
    tenantId: a.id, requester: a.requester, tool: "refund_invoice", args: { invoice_number: "INV-1044", amount_minor: 45_000, reason: "Customer overpaid" },
  });
  if (outcome.state !== "pending") throw new Error(`expected pending, got ${outcome.state}`);
  await decideAction(t.db, { tenantId: a.id, actionId: outcome.actionId, verdict: "approve", payloadHash: outcome.payloadHash, reviewer: a.users.reviewer.member });
});

async function zipped(stream: ReadableStream<Uint8Array>): Promise<Record<string, string>> {
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  return Object.fromEntries(Object.entries(unzipSync(bytes)).map(([name, data]) => [name, strFromU8(data)]));
}

describe("the oversight evidence pack", () => {
  it("holds the period's events with proofs, the verifier and its passing result, keys, policies, roles and each vote's latency", async () => {
    const pack = await buildEvidencePack(t.db, { tenantId: a.id, from: today(), to: today() });
    expect(pack.verified).toBe(true);
    const files = await zipped(zipEvidencePack(pack));
    expect(Object.keys(files)).toEqual([...EVIDENCE_FILES]);
    expect(existsSync(pack.dir)).toBe(false);

    const verification = JSON.parse(files["verification.json"]) as { offlineVerifier: { ok: boolean }; console: { incremental: { ok: boolean } } };
    expect(verification).toMatchObject({ offlineVerifier: { ok: true }, console: { incremental: { ok: true } } });
    expect(JSON.parse(files["keys.json"])).toMatchObject({ logKey: auditKeys().verifierKey });
    const policies = JSON.parse(files["policies.json"]) as Array<{ version: number }>;
    expect(policies.length).toBeGreaterThan(0);
    const roles = JSON.parse(files["roles.json"]) as { members: Array<{ email: string; roles: string[] }> };
    expect(roles.members).toContainEqual(expect.objectContaining({ email: a.users.reviewer.email, roles: ["reviewer"] }));
    const [header, vote, ...rest] = files["decisions.csv"].trim().split("\r\n");
    expect(header).toBe("decisionId,actionId,tool,revision,requestedAt,decidedAt,seconds,reviewer,verdict,void,note");
    expect(rest).toEqual([]);
    expect(vote).toContain(`,refund_invoice,1,`);
    expect(vote).toContain(`,${a.users.reviewer.email},approve,false,`);

    // The auditor's own run of the bundled verifier on the bundled events.
    const dir = mkdtempSync(path.join(os.tmpdir(), "countersign-pack-"));
    for (const name of ["events.jsonl", "verify-audit-export.mjs"]) writeFileSync(path.join(dir, name), files[name]);
    const run = spawnSync(process.execPath, [path.join(dir, "verify-audit-export.mjs"), path.join(dir, "events.jsonl"), "--log-key", auditKeys().verifierKey], { encoding: "utf8" });
    expect(run.stderr.split("\n")[0]).toBe("");
    expect(run.status).toBe(0);
    const events = files["events.jsonl"].trim().split("\n").map((l) => JSON.parse(l) as { kind: string; leaf?: { type: string }; inclusion?: unknown });
    expect(events[0]).toMatchObject({ kind: "countersign.audit-export", complete: false });
    expect(events.filter((e) => e.kind === "event").map((e) => e.leaf!.type)).toEqual(expect.arrayContaining(["action.proposed", "decision.recorded"]));
    expect(events.filter((e) => e.kind === "event").every((e) => e.inclusion)).toBe(true);
  });

  it("lists every vote of a period longer than one page once, in order, and only the policy versions in force during it", async () => {
    const tenant = await createTestTenant(t.db);
    const outcome = await proposeAction(t.db, {
      tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice", args: { invoice_number: "INV-1044", amount_minor: 45_000, reason: "Customer overpaid" },
    });
    if (outcome.state !== "pending") throw new Error(`expected pending, got ${outcome.state}`);
    await decideAction(t.db, { tenantId: tenant.id, actionId: outcome.actionId, verdict: "approve", payloadHash: outcome.payloadHash, reviewer: tenant.users.reviewer.member });
    // 2,500 more votes, many at the same millisecond (pages end between votes of one moment).
    await t.db.$executeRawUnsafe(`
      INSERT INTO "Decision" (id, "tenantId", "actionId", "revisionId", "reviewerId", verdict, note, "payloadHash", void, "createdAt")
      SELECT gen_random_uuid(), d."tenantId", d."actionId", d."revisionId", d."reviewerId", d.verdict, 'copy ' || g, d."payloadHash", true, d."createdAt" + (g % 7) * interval '1 millisecond'
      FROM "Decision" d, generate_series(1, 2500) g WHERE d."tenantId" = $1::uuid`, tenant.id);
    // Versions 1 and 2 were replaced before the period began (a backdated history); 3 is in force at its start.
    await t.db.$executeRawUnsafe(`UPDATE "ToolPolicy" SET "createdAt" = now() - interval '3 days' WHERE "tenantId" = $1::uuid`, tenant.id);
    const current = await t.db.toolPolicy.findFirstOrThrow({ where: { tenantId: tenant.id }, orderBy: { version: "desc" } });
    for (const [version, daysAgo] of [[current.version + 1, 2.5], [current.version + 2, 2]] as const) {
      await t.db.toolPolicy.create({ data: { tenantId: tenant.id, version, document: current.document as object, createdAt: new Date(Date.now() - daysAgo * 86_400_000) } });
    }
    await t.db.toolPolicy.create({ data: { tenantId: tenant.id, version: current.version + 3, document: current.document as object, comment: "during the period" } });

    const pack = await buildEvidencePack(t.db, { tenantId: tenant.id, from: today(), to: today() });
    const files = await zipped(zipEvidencePack(pack));
    const rows = files["decisions.csv"].trim().split("\r\n").slice(1).map((line) => line.split(","));
    expect(rows).toHaveLength(2_501);
    expect(new Set(rows.map((r) => r[0])).size).toBe(2_501);
    const times = rows.map((r) => `${r[5]} ${r[0]}`);
    expect(times).toEqual([...times].sort());
    const policies = JSON.parse(files["policies.json"]) as Array<{ version: number; comment: string | null }>;
    expect(policies.map((p) => p.version)).toEqual([current.version + 2, current.version + 3]);
    expect(policies[1].comment).toBe("during the period");
  });

  it("a period with nothing in it still makes a pack that says so", async () => {
    const pack = await buildEvidencePack(t.db, { tenantId: a.id, from: "2020-01-01", to: "2020-01-02" });
    const files = await zipped(zipEvidencePack(pack));
    expect(files["decisions.csv"].trim().split("\r\n")).toHaveLength(1);
    expect(files["events.jsonl"].trim().split("\n").filter((l) => l.includes('"kind":"event"'))).toEqual([]);
  });
});
