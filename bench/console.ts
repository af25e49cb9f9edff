// Console read paths at scale: the audit explorer's first page for each filter and the review
// queue's query, on one tenant holding 1,000,000 audit events and 100,000 pending actions.
//   npm run bench:console [-- runs=30]
// A throw-away embedded PostgreSQL is started, migrated, seeded and removed. Seeding is bulk
// `INSERT … SELECT generate_series` with the append-only triggers in place (inserts are allowed).
// The benchmark tenant's MACs, leaf hashes and seals are SYNTHETIC (md5-derived, not a real tree):
// this measures reads, and verifyAuditChain would rightly reject this tenant (bench:audit measures
// the real write, seal and verification paths).
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";
import { createDb } from "../lib/db/client";
import { startEmbeddedPostgres } from "../lib/db/embedded-postgres";
import { migrateDatabase } from "../lib/db/migrate";
import type { AuditFilters } from "../lib/audit/audit-filters";
import { searchAuditEvents } from "../lib/audit/search-audit-events";
import { listReviewQueue } from "../lib/review/list-review-queue";

const RUNS = Number(process.argv.find((a) => a.startsWith("runs="))?.slice(5) ?? 30);
const EVENTS = 1_000_000;
const PENDING = 100_000;
const AUDIT_P95_TARGET_MS = 50;
const QUEUE_P95_TARGET_MS = 150;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

async function time(label: string, fn: () => Promise<unknown>): Promise<{ label: string; p50: number; p95: number }> {
  for (let i = 0; i < 3; i++) await fn(); // warm-up: plan cache, buffers
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await fn();
    samples.push(performance.now() - started);
  }
  return { label, p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

const dir = mkdtempSync(path.join(os.tmpdir(), "countersign-bench-console-"));
chmodSync(dir, 0o755);
const cluster = await startEmbeddedPostgres({ dataDir: dir, port: 57_400, ephemeral: true });
try {
  const admin = new Client({ connectionString: cluster.url() });
  await admin.connect();
  await admin.query("CREATE DATABASE bench");
  await admin.end();
  const url = cluster.url("bench");
  await migrateDatabase(url, { appRole: cluster.appRole }, process.cwd());

  const pg = new Client({ connectionString: url });
  await pg.connect();
  const tenantId = (await pg.query<{ id: string }>(`INSERT INTO "Tenant" (id, slug, name, domains) VALUES (gen_random_uuid(), 'bench', 'Bench', '{bench.test}') RETURNING id`)).rows[0].id;
  const users = await pg.query<{ id: string; email: string }>(`
    INSERT INTO "User" (id, email, name) SELECT gen_random_uuid(), 'reviewer' || g || '@bench.test', 'Reviewer ' || g FROM generate_series(1, 5) g RETURNING id, email`);
  const reviewerIds = users.rows.map((u) => u.id);
  await pg.query(`INSERT INTO "Membership" (id, "tenantId", "userId", roles) SELECT gen_random_uuid(), $1, id, '{reviewer}' FROM "User"`, [tenantId]);

  let started = performance.now();
  // 1M events over ~60 days, ids and times growing together (as appendAuditEvent assigns them).
  await pg.query(
    `INSERT INTO "AuditEvent" (id, "tenantId", at, uid, "actorType", "actorId", "actorLabel", type, outcome, "subjectType", "subjectId",
       "actionId", tool, verdict, "riskLevel", "reviewerId", requester, status, data)
     SELECT g, $1::uuid, now() - interval '60 days' + g * interval '5 seconds', gen_random_uuid(),
       CASE WHEN g % 3 = 0 THEN 'user' ELSE 'agent' END, NULL,
       CASE WHEN g % 3 = 0 THEN 'reviewer' || (g % 5 + 1) || '@bench.test' ELSE 'requester' || (g % 50) || '@bench.test' END,
       (ARRAY['action.proposed','decision.recorded','execution.succeeded','task.started','decision.refused','action.expired'])[g % 6 + 1],
       CASE WHEN g % 6 = 4 THEN 'refused' ELSE 'ok' END, 'action', NULL, NULL,
       (ARRAY['send_email','refund_invoice','cancel_invoice','run_python','get_invoice','lookup_customer','get_dataset'])[g % 7 + 1],
       CASE WHEN g % 6 = 1 THEN (ARRAY['approve','reject']::"Verdict"[])[g % 2 + 1] END,
       (ARRAY['low','medium','high','critical']::"RiskLevel"[])[g % 4 + 1],
       CASE WHEN g % 6 = 1 THEN ($2::uuid[])[g % 5 + 1] END,
       'requester' || (g % 50) || '@bench.test',
       (ARRAY['pending','approved','rejected','succeeded','expired','failed'])[g % 6 + 1],
       '{}'::jsonb
     FROM generate_series(1, ${EVENTS}) g`,
    [tenantId, reviewerIds],
  );
  // Their (synthetic) leaves, as sealing would have written them; none is left to be sealed.
  await pg.query(
    `INSERT INTO "AuditSeal" ("eventId", "tenantId", seq, "leafHash", nodes, mac, floor)
     SELECT g, $1::uuid, g, md5(g::text) || md5(g::text), '{}', md5(g::text), pg_current_xact_id() FROM generate_series(1, ${EVENTS}) g`,
    [tenantId],
  );
  await pg.query(`SELECT setval(pg_get_serial_sequence('"AuditEvent"', 'id'), ${EVENTS})`);
  console.log(`seeded ${EVENTS.toLocaleString("en-US")} audit events in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  started = performance.now();
  await pg.query(
    `INSERT INTO "Action" (id, "tenantId", "requesterLabel", kind, tool, status, "requiresApproval", "payloadHash", "riskLevel", "riskRank",
       quorum, "eligibleRoles", "expiresAt", "createdAt", "updatedAt")
     SELECT gen_random_uuid(), $1::uuid, 'requester' || (g % 50) || '@bench.test', 'tool', 'send_email', 'pending', true, md5(g::text) || md5(g::text),
       (ARRAY['low','medium','high','critical']::"RiskLevel"[])[g % 4 + 1], g % 4, 1, '{reviewer}', now() + (g % 1440) * interval '1 minute', now(), now()
     FROM generate_series(1, ${PENDING}) g`,
    [tenantId],
  );
  await pg.query(
    `INSERT INTO "ActionRevision" (id, "tenantId", "actionId", revision, args, "policyVersion", "policyDecision", "requiresApproval", quorum,
       "eligibleRoles", "payloadHash", "hashAlgorithm", "hashVersion", "riskTags", "riskLevel", preview, origin)
     SELECT gen_random_uuid(), a."tenantId", a.id, 1, '{"to":"billing@acme.example","subject":"Reminder"}'::jsonb, 1, '{"effect":"require_approval"}'::jsonb,
       true, 1, '{reviewer}', a."payloadHash", 'sha256', 1, '[]'::jsonb, a."riskLevel", '{}'::jsonb, 'proposed'
     FROM "Action" a WHERE a."tenantId" = $1::uuid`,
    [tenantId],
  );
  console.log(`seeded ${PENDING.toLocaleString("en-US")} pending actions (+ revisions) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await pg.query("VACUUM ANALYZE");
  await pg.end();

  // Seeded in bulk as the owner above; read as the app role, as the console does.
  const db = createDb(cluster.appUrl("bench"), { max: 2 });
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
  const cases: Array<[string, AuditFilters]> = [
    ["no filter", {}],
    ["date range (7 days, 3 weeks ago)", { from: day(28), to: day(21) }],
    ["tool", { tool: "refund_invoice" }],
    ["decision (verdict)", { verdict: "reject" }],
    ["risk level", { risk: "critical" }],
    ["reviewer", { reviewer: reviewerIds[2] }],
    ["requester", { requester: "requester7@bench.test" }],
    ["status", { status: "expired" }],
    ["event type", { type: "decision.refused" }],
    ["tool + risk", { tool: "send_email", risk: "high" }],
    ["tool + date range", { tool: "run_python", from: day(40), to: day(30) }],
    ["free text (common)", { q: "refund" }],
    ["free text (rare: scan bound)", { q: "no-such-thing" }],
  ];
  const results: Array<{ label: string; p50: number; p95: number; target: number }> = [];
  for (const [label, filters] of cases) {
    const page = await searchAuditEvents(db, { tenantId, filters });
    const r = await time(`audit: ${label} (${page.events.length} rows)`, () => searchAuditEvents(db, { tenantId, filters }));
    results.push({ ...r, target: AUDIT_P95_TARGET_MS });
  }
  // A deep page: the cursor from half-way through the log.
  const middle = String(EVENTS / 2);
  const deep = await time("audit: page at event 500,000 (keyset)", () => searchAuditEvents(db, { tenantId, filters: {}, cursor: BigInt(middle) }));
  results.push({ ...deep, target: AUDIT_P95_TARGET_MS });
  const deepTool = await time("audit: tool filter, page at event 500,000", () => searchAuditEvents(db, { tenantId, filters: { tool: "cancel_invoice" }, cursor: BigInt(middle) }));
  results.push({ ...deepTool, target: AUDIT_P95_TARGET_MS });

  const reviewer = { tenantId, userId: reviewerIds[0], roles: ["reviewer" as const] };
  const queue = await time("queue: first page (listReviewQueue, 100k pending)", () => listReviewQueue(db, reviewer));
  results.push({ ...queue, target: QUEUE_P95_TARGET_MS });

  console.log(`\n${RUNS} runs each after 3 warm-ups; times in ms`);
  const width = Math.max(...results.map((r) => r.label.length));
  console.log(`${"query".padEnd(width)}   p50     p95   target  ok`);
  for (const r of results) {
    console.log(`${r.label.padEnd(width)} ${r.p50.toFixed(1).padStart(6)} ${r.p95.toFixed(1).padStart(7)} ${`≤${r.target}`.padStart(7)}  ${r.p95 <= r.target ? "yes" : "NO"}`);
  }
  await db.$disconnect();
} finally {
  await cluster.stop().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
}
