// Data sets in and artifacts out, through the whole approval path, under each OS sandbox.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestTenant } from "@/tests/factories";
import { refusal } from "@/tests/refusal";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { decideAction } from "@/lib/approvals/decide-action";
import { executeAction } from "@/lib/approvals/execute-action";
import { proposeAction } from "@/lib/approvals/propose-action";
import { canonicalJson } from "@/lib/canonical/canonical-json";
import { loadActionDetail } from "@/lib/review/load-action-detail";
import { artifactResponse, safeDownloadName } from "@/lib/executions/artifact-response";
import { findArtifact } from "@/lib/executions/find-artifact";
import { ContainerPool } from "@/lib/sandbox/container-pool";
import { setWarmPool } from "@/lib/sandbox/docker-runner";
import { parseSandboxSpec } from "@/lib/sandbox/spec";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);
const b = setUpTestTenant(t);
const SYSTEM = { type: "system", label: "test" } as const;
const ROWS = [{ bucket: "logs-2019", last_access_days: 900 }, { bucket: "hot", last_access_days: 1 }];
const ROWS_BYTES = Buffer.from(canonicalJson(ROWS), "utf8");
const ROWS_SHA = createHash("sha256").update(ROWS_BYTES).digest("hex");

// A 1x1 PNG, written by the code as an artifact.
const PNG_HEX = "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360f8cfc00000030101001877a0e60000000049454e44ae426082";

beforeAll(async () => {
  await t.db.dataset.create({ data: { tenantId: a.id, name: "buckets-a", content: ROWS } });
});

async function approvedRun(tenant: TestTenant, code: string, datasets?: string[]) {
  const p = await proposeAction(t.db, {
    tenantId: tenant.id, requester: tenant.requester, tool: "run_python", args: { code, language: "python", ...(datasets ? { datasets } : {}) },
  });
  if (p.state !== "pending") throw new Error(`expected pending, got ${p.state}: ${"reason" in p ? p.reason : ""}`);
  await decideAction(t.db, { tenantId: tenant.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: tenant.users.reviewer.member });
  if (pool) {
    // The run takes a container the pool made ahead of need for exactly this spec.
    const revision = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: p.actionId, status: "current" } });
    await pool.whenFull(parseSandboxSpec(revision.sandboxSpec));
  }
  return p;
}

// Every OS sandbox: bubblewrap (host folders) and Docker, cold and from the warm pool (tmpfs
// mounts filled and read by execs).
const MODES = (process.env.SANDBOX_FILES_TEST_MODES ?? "bwrap,docker,docker-pooled").split(",");
let pool: ContainerPool | null = null;

describe.each(MODES)("files in and out (%s)", (mode) => {
  let previousMode: string | undefined;
  beforeAll(() => {
    previousMode = process.env.SANDBOX_MODE;
    process.env.SANDBOX_MODE = mode === "docker-pooled" ? "docker" : mode;
    if (mode === "docker-pooled") {
      pool = new ContainerPool({ size: 1 });
      setWarmPool(pool);
    }
  });
  afterAll(async () => {
    if (pool) {
      setWarmPool(null);
      await pool.drain();
      pool = null;
    }
    if (previousMode === undefined) delete process.env.SANDBOX_MODE;
    else process.env.SANDBOX_MODE = previousMode;
    delete process.env.SANDBOX_ARTIFACT_MAX_COUNT;
  });

  it("mounts a named data set read-only: the code reads exactly its bytes and cannot change it", async () => {
    const code = [
      "import hashlib, json",
      "data = open('/mnt/data/buckets-a.json', 'rb').read()",
      "print('sha', hashlib.sha256(data).hexdigest())",
      "print('stale', [r['bucket'] for r in json.loads(data) if r['last_access_days'] > 365])",
      "for path, mode in (('/mnt/data/buckets-a.json', 'w'), ('/mnt/data/extra.json', 'w')):",
      "    try:",
      "        open(path, mode).write('changed')",
      "        print('WROTE', path)",
      "    except OSError as e:",
      "        print('refused', path, type(e).__name__)",
    ].join("\n");
    const p = await approvedRun(a, code, ["buckets-a"]);
    // The reviewer saw which data set, its size and hash, before approving.
    const detail = await loadActionDetail(t.db, { tenantId: a.id, userId: a.users.reviewer.id, roles: ["reviewer"] }, p.actionId);
    expect(detail?.current.preview?.summary).toContain(`buckets-a (${ROWS_BYTES.length} bytes, sha256 ${ROWS_SHA.slice(0, 12)}`);
    expect(detail?.current.datasets).toEqual([{ name: "buckets-a", sha256: ROWS_SHA, bytes: ROWS_BYTES.length }]);

    const done = await executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: SYSTEM });
    expect(done.result.stderr).toBe("");
    expect(done.state).toBe("succeeded");
    const stdout = String(done.result.stdout);
    expect(stdout).toContain(`sha ${ROWS_SHA}`);
    expect(stdout).toContain("stale ['logs-2019']");
    expect(stdout).not.toContain("WROTE");
    expect(stdout).toContain("refused /mnt/data/buckets-a.json");
    expect(stdout).toContain("refused /mnt/data/extra.json");
    const row = await t.db.dataset.findFirstOrThrow({ where: { tenantId: a.id, name: "buckets-a" } });
    expect(row.content).toEqual(ROWS);
  }, 60_000);

  it("the data set's hash is part of the approved payload: changed after approval, the code does not run", async () => {
    await t.db.dataset.create({ data: { tenantId: a.id, name: `moving-${mode}`, content: [{ v: 1 }] } });
    const p = await approvedRun(a, `print(open('/mnt/data/moving-${mode}.json').read())`, [`moving-${mode}`]);
    await t.db.dataset.update({ where: { tenantId_name: { tenantId: a.id, name: `moving-${mode}` } }, data: { content: [{ v: 2 }] } });

    const refused = await refusal(executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: SYSTEM }));
    expect(refused.code).toBe("state_changed");
    expect(await t.db.execution.count({ where: { actionId: p.actionId } })).toBe(0);
    // Revision 2 waits for a decision on the new bytes, under a new hash.
    const action = await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } });
    expect(action).toMatchObject({ status: "pending", currentRevision: 2 });
    expect(action.payloadHash).not.toBe(p.payloadHash);
  }, 60_000);

  it("another tenant's data set is not found, and nothing is proposed", async () => {
    const refused = await refusal(
      proposeAction(t.db, { tenantId: b.id, requester: b.requester, tool: "run_python", args: { code: "print(1)", datasets: ["buckets-a"] } }),
    );
    expect(refused.code).toBe("not_found");
    expect(refused.message).toContain("buckets-a");
    expect(await t.db.action.count({ where: { tenantId: b.id } })).toBe(0);
  });

  it("files written under /mnt/out come back as artifacts, stored with the execution", async () => {
    const code = [
      "import pathlib",
      `open('/mnt/out/chart.png', 'wb').write(bytes.fromhex('${PNG_HEX}'))`,
      "pathlib.Path('/mnt/out/tables').mkdir()",
      "open('/mnt/out/tables/stale.csv', 'w').write('bucket,days\\nlogs-2019,900\\n')",
    ].join("\n");
    const p = await approvedRun(a, code);
    const handedOut = pool?.stats().handedOut ?? 0;
    const done = await executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: SYSTEM });
    expect(done.state).toBe("succeeded");
    if (pool) expect(pool.stats().handedOut).toBe(handedOut + 1);
    const listed = done.result.artifacts as { name: string; content_type: string; size_bytes: number; sha256: string }[];
    expect(listed.map((x) => [x.name, x.content_type])).toEqual([["chart.png", "image/png"], ["tables/stale.csv", "text/csv"]]);
    const stored = await t.db.executionArtifact.findMany({ where: { executionId: done.executionId }, orderBy: { name: "asc" } });
    expect(stored.map((s) => s.name)).toEqual(["chart.png", "tables/stale.csv"]);
    expect(Buffer.from(stored[0].data).toString("hex")).toBe(PNG_HEX);
    expect(stored[0].sha256).toBe(createHash("sha256").update(Buffer.from(PNG_HEX, "hex")).digest("hex"));
    expect(stored.every((s) => s.tenantId === a.id)).toBe(true);

    // The action page lists them (the image inline), served by the console's artifact route.
    const detail = await loadActionDetail(t.db, { tenantId: a.id, userId: a.users.reviewer.id, roles: ["reviewer"] }, p.actionId);
    expect(detail?.executions[0].artifacts.map((x) => [x.name, x.inline, x.sizeBytes])).toEqual([
      ["chart.png", true, PNG_HEX.length / 2],
      ["tables/stale.csv", false, "bucket,days\nlogs-2019,900\n".length],
    ]);
    const [png, csv] = stored;
    const image = artifactResponse(await findArtifact(t.db, { tenantId: a.id, actionId: p.actionId, artifactId: png.id }));
    expect(Buffer.from(await image.arrayBuffer()).toString("hex")).toBe(PNG_HEX);
    expect(Object.fromEntries(image.headers)).toMatchObject({
      "content-type": "image/png", "content-disposition": 'inline; filename="chart.png"', "x-content-type-options": "nosniff", "cache-control": "private, no-store",
    });
    const table = artifactResponse(await findArtifact(t.db, { tenantId: a.id, actionId: p.actionId, artifactId: csv.id }));
    expect(table.headers.get("content-disposition")).toBe('attachment; filename="stale.csv"');
    // Another tenant, another action, or an unknown id: the same not found.
    for (const scope of [
      { tenantId: b.id, actionId: p.actionId, artifactId: png.id },
      { tenantId: a.id, actionId: crypto.randomUUID(), artifactId: png.id },
      { tenantId: a.id, actionId: p.actionId, artifactId: crypto.randomUUID() },
      { tenantId: a.id, actionId: p.actionId, artifactId: "not-a-uuid" },
    ]) {
      expect((await refusal(findArtifact(t.db, scope))).code).toBe("not_found");
    }
  }, 60_000);

  it("more files than the cap: the run fails with a clear message and no artifact is kept", async () => {
    process.env.SANDBOX_ARTIFACT_MAX_COUNT = "2";
    try {
      const code = "for i in range(3):\n    open(f'/mnt/out/part-{i}.csv', 'w').write('x\\n')\nprint('wrote 3')";
      const p = await approvedRun(a, code);
      const done = await executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: SYSTEM });
      expect(done.state).toBe("failed");
      expect(done.result.stdout).toBe("wrote 3\n");
      expect(done.result.artifacts_refused).toMatch(/more than 2 files in \/mnt\/out.*SANDBOX_ARTIFACT_MAX_COUNT.*none were kept/);
      expect(done.result.artifacts).toEqual([]);
      expect(await t.db.executionArtifact.count({ where: { executionId: done.executionId } })).toBe(0);
    } finally {
      delete process.env.SANDBOX_ARTIFACT_MAX_COUNT;
    }
  }, 60_000);

  it("a link left in /mnt/out is refused, never followed", async () => {
    const p = await approvedRun(a, "import pathlib\npathlib.Path('/mnt/out/secret').symlink_to('/etc/hostname')\n");
    const done = await executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: SYSTEM });
    expect(done.state).toBe("failed");
    expect(done.result.artifacts_refused).toContain("/mnt/out/secret is not a plain file");
    expect(await t.db.executionArtifact.count({ where: { executionId: done.executionId } })).toBe(0);
  }, 60_000);
});

describe("safeDownloadName", () => {
  it("keeps the last path segment in letters, digits, dot, dash and underscore; never empty or hidden", () => {
    expect(safeDownloadName("tables/stale.csv")).toBe("stale.csv");
    expect(safeDownloadName('a"b\r\nSet-Cookie: x.txt')).toBe("a_b__Set-Cookie__x.txt");
    expect(safeDownloadName("../..")).toBe("artifact");
    expect(safeDownloadName(".bashrc")).toBe("bashrc");
    expect(safeDownloadName("résumé.pdf")).toBe("r_sum_.pdf");
  });
});
