// The audit log at scale, through the real code and database: appending and sealing N events
// (default 1,000,000), signing a checkpoint (which verifies every leaf since the last one), the
// console's full verification, a complete verifiable export and the standalone verifier on it —
// each as events/s, the verification walks also against raw SHA-256 over the same leaf bytes —
// and the server time of /audit's data with N events (target p95 ≤ 50 ms: it no longer walks).
//   npm run bench:audit [-- events=1000000 runs=30]
// A throw-away embedded PostgreSQL is started, migrated and removed.
import { execFile } from "node:child_process";
import { hash as oneShotHash } from "node:crypto";
import { chmodSync, createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { once } from "node:events";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { Client } from "pg";
import { Prisma } from "../lib/generated/prisma/client";
import { createDb, type Db } from "../lib/db/client";
import { startEmbeddedPostgres } from "../lib/db/embedded-postgres";
import { migrateDatabase } from "../lib/db/migrate";
import { query } from "../lib/db/sql";
import { auditInsertFromJson } from "../lib/db/statements/audit/insert-audit-events";
import { auditBodyOf } from "../lib/audit/append-audit-event";
import { auditKeys } from "../lib/audit/audit-keys";
import { checkpointAuditLog } from "../lib/audit/checkpoint-audit-log";
import { sealAuditChain } from "../lib/audit/seal-audit-chain";
import { searchAuditEvents } from "../lib/audit/search-audit-events";
import { verifiableExportLines } from "../lib/audit/verifiable-export";
import { verifyAuditChain } from "../lib/audit/verify-audit-chain";
import { readLatestAuditVerification } from "../lib/db/statements/audit/read-latest-audit-verification";
import { listMembers } from "../lib/members/list-members";

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1) ?? fallback);
const EVENTS = arg("events", 1_000_000);
const RUNS = arg("runs", 30);
const BATCH = 2_000;
const PAGE_P95_TARGET_MS = 50;
const run = promisify(execFile);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
const seconds = (since: number) => (performance.now() - since) / 1000;
const rate = (n: number, s: number) => `${Math.round(n / s).toLocaleString("en-US")} events/s`;

/** Writes `count` events the way the console does (each built and MAC'd by auditBodyOf), BATCH per statement. */
async function append(db: Db, tenantId: string, count: number): Promise<void> {
  const types = ["task.started", "action.expired", "api_key.revoked"] as const;
  for (let start = 0; start < count; start += BATCH) {
    const bodies = Array.from({ length: Math.min(BATCH, count - start) }, (_, i) => {
      const n = start + i;
      const type = types[n % types.length];
      return type === "task.started"
        ? auditBodyOf({ tenantId, actor: { type: "agent", label: `agent-${n % 50}` }, type, outcome: "ok", subject: { type: "task", id: `t${n}` }, data: { planner: "bench", instructionLength: n % 1000 } })
        : type === "action.expired"
          ? auditBodyOf({ tenantId, actor: { type: "system", label: "sweeper" }, type, outcome: "ok", subject: { type: "action", id: null }, status: "expired", data: { revision: 1, detectedBy: "sweeper", previousStatus: "pending" } })
          : auditBodyOf({ tenantId, actor: { type: "user", label: `admin${n % 5}@bench.test` }, type, outcome: "ok", subject: { type: "api_key", id: `k${n}` }, data: { name: `key ${n}`, prefix: `cs_${n}` } });
    });
    await query(db, Prisma.sql`
      WITH x AS (SELECT e.value AS event, e.ordinality AS ord FROM jsonb_array_elements(${JSON.stringify(bodies)}::jsonb) WITH ORDINALITY e)
      ${auditInsertFromJson(Prisma.sql`x`, Prisma.sql`x.event`, { order: Prisma.sql`x.ord` })}`);
  }
}

/** Raw SHA-256 over the leaf bytes of a complete export (each event line is {"kind":"event","seq":"…","leaf":<leaf>}). */
async function rawSha256(file: string): Promise<{ leaves: number; bytes: number; seconds: number }> {
  const leaves: Buffer[] = [];
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (!line.startsWith('{"kind":"event"')) continue;
    const at = line.indexOf('"leaf":') + 7;
    leaves.push(Buffer.concat([Buffer.from([0]), Buffer.from(line.slice(at, -1), "utf8")]));
  }
  const started = performance.now();
  for (const leaf of leaves) oneShotHash("sha256", leaf, "buffer");
  return { leaves: leaves.length, bytes: leaves.reduce((n, l) => n + l.length, 0), seconds: seconds(started) };
}

const dir = mkdtempSync(path.join(os.tmpdir(), "countersign-bench-audit-"));
chmodSync(dir, 0o755);
const cluster = await startEmbeddedPostgres({ dataDir: dir, port: 57_500, ephemeral: true });
const lines: string[] = [];
const report = (line: string) => {
  lines.push(line);
  console.log(line);
};
try {
  const admin = new Client({ connectionString: cluster.url() });
  await admin.connect();
  await admin.query("CREATE DATABASE bench");
  await admin.end();
  await migrateDatabase(cluster.url("bench"), { appRole: cluster.appRole }, process.cwd());
  // The console's own role: it may only append to the audit tables.
  const db = createDb(cluster.appUrl("bench"), { max: 5 });
  const tenant = await db.tenant.create({ data: { slug: "bench", name: "Bench", domains: ["bench.test"] } });
  auditKeys();

  let started = performance.now();
  await append(db, tenant.id, EVENTS);
  report(`append (built and MAC'd by the console, ${BATCH} per statement): ${rate(EVENTS, seconds(started))}`);

  started = performance.now();
  let sealed = 0;
  for (let n = -1; n !== 0; sealed += n) n = await sealAuditChain(db, tenant.id);
  report(`seal (MAC checked, leaf hashed, subtrees and seal MAC stored): ${sealed.toLocaleString("en-US")} in ${seconds(started).toFixed(1)} s, ${rate(sealed, seconds(started))}`);

  started = performance.now();
  const signed = await checkpointAuditLog(db, tenant.id);
  if (signed.state !== "signed") throw new Error(`checkpoint ${signed.state}`);
  const checkpointSeconds = seconds(started);
  report(`checkpoint (verifies all ${EVENTS.toLocaleString("en-US")} new leaves first, then signs): ${checkpointSeconds.toFixed(1)} s, ${rate(EVENTS, checkpointSeconds)}`);

  started = performance.now();
  const full = await verifyAuditChain(db, tenant.id, { kind: "full" });
  if (!full.ok) throw new Error(`full verification failed: ${full.problems[0]?.message}`);
  const consoleSeconds = seconds(started);
  report(`console full verification (MACs, leaves, subtrees, checkpoints): ${consoleSeconds.toFixed(1)} s, ${rate(EVENTS, consoleSeconds)}`);

  const file = path.join(dir, "export.jsonl");
  started = performance.now();
  const out = createWriteStream(file);
  for await (const line of verifiableExportLines(db, { tenantId: tenant.id, filters: {} })) if (!out.write(line)) await once(out, "drain");
  out.end();
  await once(out, "finish");
  report(`complete export: ${(statSync(file).size / 1e6).toFixed(0)} MB in ${seconds(started).toFixed(1)} s, ${rate(EVENTS, seconds(started))}`);

  started = performance.now();
  await run(process.execPath, [path.join(process.cwd(), "scripts", "verify-audit-export.mjs"), file, "--log-key", auditKeys().verifierKey], { maxBuffer: 64 * 1024 * 1024 });
  const offlineSeconds = seconds(started);
  const raw = await rawSha256(file);
  report(`offline verifier (child process, start-up included): ${offlineSeconds.toFixed(1)} s, ${rate(EVENTS, offlineSeconds)}`);
  report(`raw SHA-256 over the same ${raw.leaves.toLocaleString("en-US")} leaves (${(raw.bytes / 1e6).toFixed(0)} MB, in process): ${raw.seconds.toFixed(2)} s, ${rate(raw.leaves, raw.seconds)}`);
  report(`ratio to raw SHA-256: offline verifier ${(raw.seconds / offlineSeconds).toFixed(2)} (target ≥ 0.5), console full walk ${(raw.seconds / consoleSeconds).toFixed(2)}`);

  // /audit's server work with N events: the first page and members (first paint), and the
  // evidence status (incremental verification since the latest checkpoint + the last full walk).
  const owner = new Client({ connectionString: cluster.url("bench") });
  await owner.connect();
  await owner.query("VACUUM ANALYZE");
  await owner.end();
  const timeIt = async (fn: () => Promise<unknown>) => {
    for (let i = 0; i < 3; i++) await fn();
    const samples: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      await fn();
      samples.push(performance.now() - t0);
    }
    return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
  };
  const firstPaint = await timeIt(() => Promise.all([searchAuditEvents(db, { tenantId: tenant.id, filters: {} }), listMembers(db, tenant.id)]));
  const status = await timeIt(() => Promise.all([verifyAuditChain(db, tenant.id, { kind: "incremental" }), readLatestAuditVerification(db, { tenantId: tenant.id, kind: "full" })]));
  for (const [label, r] of [["/audit first paint (first page, members)", firstPaint], ["/audit evidence status (incremental check, last full walk)", status]] as const) {
    report(`${label}: p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms (target ≤ ${PAGE_P95_TARGET_MS}) ${r.p95 <= PAGE_P95_TARGET_MS ? "met" : "NOT MET"}`);
  }
  await db.$disconnect();
  console.log(`\n${EVENTS.toLocaleString("en-US")} events, ${os.cpus().length} cores; ${RUNS} runs after 3 warm-ups for the page times.`);
} finally {
  await cluster.stop().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
}
