import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { unzipSync, strFromU8 } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/tests/db";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { proposeAction } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { auditKeys } from "@/lib/audit/audit-keys";
import { buildEvidencePack, EVIDENCE_FILES, zipEvidencePack } from "@/lib/audit/evidence-pack";

let t: TestDatabase;
let a: TestTenant;
const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  t = await createTestDatabase();
  a = await createTestTenant(t.db);
  const outcome = await proposeAction(t.db, {
    tenantId: a.id, requester: a.requester, tool: "refund_invoice", args: { invoice_number: "INV-1044", amount_minor: 45_000, reason: "Customer overpaid" },
  });
  if (outcome.state !== "pending") throw new Error(`expected pending, got ${outcome.state}`);
  await decideAction(t.db, { tenantId: a.id, actionId: outcome.actionId, verdict: "approve", payloadHash: outcome.payloadHash, reviewer: a.users.reviewer.member });
});
afterAll(async () => t?.drop());

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

  it("a period with nothing in it still makes a pack that says so", async () => {
    const pack = await buildEvidencePack(t.db, { tenantId: a.id, from: "2020-01-01", to: "2020-01-02" });
    const files = await zipped(zipEvidencePack(pack));
    expect(files["decisions.csv"].trim().split("\r\n")).toHaveLength(1);
    expect(files["events.jsonl"].trim().split("\n").filter((l) => l.includes('"kind":"event"'))).toEqual([]);
  });
});
