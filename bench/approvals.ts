/**
 * Approval-core benchmark (a script, not a test): proposals per second and decision-to-execution
 * latency through the real domain functions at 1, 16 and 64 concurrent callers, next to the raw
 * INSERT rate of the same rows measured in the same run on the same database.
 *
 *   npm run bench:approvals            (or: node --import tsx bench/approvals.ts [seconds-per-level])
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { Client, Pool } from "pg";
import { createDb, embeddedPoolSize } from "@/lib/db/client";
import { startEmbeddedPostgres } from "@/lib/db/embedded-postgres";
import { migrateDatabase } from "@/lib/db/migrate";
import { proposeAction } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { executeAction } from "@/lib/approvals/execute-action";
import { sealAllPending } from "@/lib/audit/seal-audit-chain";
import { createTestTenant } from "@/tests/factories";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import type { Policy } from "@/lib/policy/policy-document";

const SECONDS = Number(process.argv[2] ?? 4);
const LEVELS = [1, 16, 64];

const dir = mkdtempSync(path.join(os.tmpdir(), "countersign-bench-"));
chmodSync(dir, 0o755);
const cluster = await startEmbeddedPostgres({ dataDir: dir, port: 58_000, ephemeral: true });
const admin = new Client({ connectionString: cluster.url() });
await admin.connect();
await admin.query("CREATE DATABASE bench");
await admin.end();
// Migrated as the owner; measured as the app role, as the console connects.
const url = cluster.appUrl("bench");
await migrateDatabase(cluster.url("bench"), { appRole: cluster.appRole });
// The app's own client, with the pool the console uses with its bundled PostgreSQL
// (lib/db/client.ts): callers beyond the pool size queue for a connection, as they would in the app.
const db = createDb(url, { max: embeddedPoolSize() });
const tenant = await createTestTenant(db);
// The same policy with a budget read first (issue 41): a daily refund budget per requester, set
// so high it never trips, so both tenants' proposals do the same work apart from the budget.
const budgetedPolicy: Policy = {
  ...DEFAULT_POLICY,
  tools: {
    ...DEFAULT_POLICY.tools,
    refund_invoice: {
      rules: [
        {
          id: "refund-budget", effect: "deny", reason: "Over the daily refund budget",
          when: 'budget.window("24h").sum("refund_invoice", "amount_minor", "key") + args.amount_minor > 1000000000000',
        },
        ...DEFAULT_POLICY.tools.refund_invoice.rules,
      ],
    },
  },
};
const budgeted = await createTestTenant(db, { policy: budgetedPolicy });
// A standing grant in force (issue 41): an API key's emails to partner.example run without review,
// taken from the grant in the proposal's own statement and executed in its transaction.
const granted = await createTestTenant(db);
const { apiKey: grantedKey } = await createApiKey(db, { tenantId: granted.id, name: "bench-granted", allowedTools: ["send_email"], createdById: granted.users.admin.id });
const grantedAgent = { type: "api_key" as const, apiKeyId: grantedKey.id, label: "api:bench-granted" };
const proposeEmailAs = () =>
  proposeAction(db, { tenantId: granted.id, requester: grantedAgent, tool: "send_email", args: { to: "ops@partner.example", subject: "Report", body: "Attached." } });
const source = await proposeEmailAs();
if (source.state !== "pending") throw new Error(`the grant's source email was ${source.state}, not pending`);
await decideAction(db, {
  tenantId: granted.id, actionId: source.actionId, verdict: "approve", payloadHash: source.payloadHash, reviewer: granted.users.reviewer.member,
  grant: { constraint: 'emailDomains(args).all(d, d == "partner.example")', description: "partner.example", maxCalls: 100_000, totalArgument: null, maxTotal: null, ttlSeconds: 86_400 },
});
// A large paid invoice so every refund proposal is valid.
for (const t of [tenant, budgeted, granted]) {
  await db.invoice.updateMany({ where: { tenantId: t.id, number: "INV-1044" }, data: { amountPaidMinor: 900_000_000 } });
}

async function forDuration(callers: number, seconds: number, work: () => Promise<void>): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < deadline) {
        await work();
        done++;
      }
    }),
  );
  return done / seconds;
}

const proposeTo = (t: typeof tenant) => () =>
  proposeAction(db, {
    tenantId: t.id, requester: t.requester, tool: "refund_invoice",
    args: { invoice_number: "INV-1044", amount_minor: 1_000 + Math.floor(Math.random() * 50_000), reason: "benchmark" },
  });
const propose = proposeTo(tenant);
const proposeBudgeted = proposeTo(budgeted);
// The plain policy's proposals in the tenant where the grant is in force (it does not cover them).
const proposeBesideGrant = proposeTo(granted);

// The same rows a proposal writes (action, revision, snapshot, audit event, and the event's seal),
// as plain INSERTs in one transaction.
const pool = new Pool({ connectionString: url, max: 64 });
pool.on("error", () => {}); // the cluster stops at the end
const invoice = await db.invoice.findFirstOrThrow({ where: { tenantId: tenant.id, number: "INV-1044" } });
let rawSeq = 10_000_000;
async function rawInsert() {
  const client = await pool.connect();
  try {
    const actionId = randomUUID();
    const revisionId = randomUUID();
    await client.query("BEGIN");
    await client.query(
      `INSERT INTO "Action" (id, "tenantId", "requesterLabel", kind, tool, status, "requiresApproval", "payloadHash", "riskLevel", "riskRank", quorum, "eligibleRoles", "expiresAt", "updatedAt")
       VALUES ($1, $2, 'bench', 'tool', 'refund_invoice', 'pending', true, $3, 'medium', 1, 1, '{reviewer}', now() + interval '1 day', now())`,
      [actionId, tenant.id, "a".repeat(64)],
    );
    await client.query(
      `INSERT INTO "ActionRevision" (id, "tenantId", "actionId", revision, args, "policyVersion", "policyDecision", "requiresApproval", quorum, "eligibleRoles", "payloadHash", "hashAlgorithm", "hashVersion", "riskTags", "riskLevel", preview, origin)
       VALUES ($1, $2, $3, 1, $4, 1, '{}', true, 1, '{reviewer}', $5, 'sha256-jcs', 1, '[]', 'medium', '{}', 'proposed')`,
      [revisionId, tenant.id, actionId, JSON.stringify({ invoice_number: invoice.number, amount_minor: 1000, reason: "benchmark" }), "a".repeat(64)],
    );
    await client.query(
      `INSERT INTO "Snapshot" (id, "tenantId", "actionId", "revisionId", phase, data, hash) VALUES ($1, $2, $3, $4, 'request', '{}', $5)`,
      [randomUUID(), tenant.id, actionId, revisionId, "b".repeat(64)],
    );
    const auditTenant = randomUUID();
    const event = await client.query<{ id: string }>(
      `INSERT INTO "AuditEvent" ("tenantId", uid, mac, "actorType", "actorLabel", type, outcome, "subjectType", data)
       VALUES ($1, gen_random_uuid(), $2, 'user', 'bench', 'raw', 'ok', 'action', '{}') RETURNING id`,
      [auditTenant, "d".repeat(64)],
    );
    // What sealing writes for the event: its leaf.
    await client.query(
      `INSERT INTO "AuditSeal" ("eventId", "tenantId", seq, "leafHash", nodes, mac, floor) VALUES ($1, $2, $3, $4, '{}', $4, '0')`,
      [event.rows[0].id, auditTenant, rawSeq++, "c".repeat(64)],
    );
    await client.query("COMMIT");
  } finally {
    client.release();
  }
}

console.log(`Countersign approval-core benchmark — ${os.cpus().length} cores, ${SECONDS}s per level, real PostgreSQL 17, pool of ${embeddedPoolSize()} connections\n`);
console.log("callers  proposals/s  budgeted/s  ×plain  grant in force/s  ×plain  granted+run/s  ×plain  raw INSERT/s  ratio");
const results: Record<number, { proposals: number; budgeted: number; beside: number; granted: number; raw: number }> = {};
for (const callers of LEVELS) {
  await forDuration(callers, 1, () => propose().then(() => {})); // warm-up
  await forDuration(callers, 1, () => proposeBudgeted().then(() => {}));
  await forDuration(callers, 1, () => proposeEmailAs().then(() => {}));
  await forDuration(callers, 1, () => proposeBesideGrant().then(() => {}));
  const proposals = await forDuration(callers, SECONDS, () => propose().then(() => {}));
  // One scope (one requester): every budgeted proposal of the run waits for the same lock.
  const budgetedRate = await forDuration(callers, SECONDS, () => proposeBudgeted().then((o) => {
    if (o.state !== "pending") throw new Error(`a budgeted proposal was ${o.state}, not pending`);
  }));
  const beside = await forDuration(callers, SECONDS, () => proposeBesideGrant().then((o) => {
    if (o.state !== "pending") throw new Error(`a proposal beside the grant was ${o.state}, not pending`);
  }));
  // Every call taken from the one grant (its row is each call's lock) and run: proposal and execution.
  const grantedRate = await forDuration(callers, SECONDS, () => proposeEmailAs().then((o) => {
    if (o.state !== "allowed") throw new Error(`a granted proposal was ${o.state}, not allowed`);
  }));
  const raw = await forDuration(callers, SECONDS, rawInsert);
  results[callers] = { proposals, budgeted: budgetedRate, beside, granted: grantedRate, raw };
  console.log(
    `${String(callers).padStart(7)}  ${proposals.toFixed(0).padStart(11)}  ${budgetedRate.toFixed(0).padStart(10)}  ${(budgetedRate / proposals).toFixed(2).padStart(6)}` +
      `  ${beside.toFixed(0).padStart(16)}  ${(beside / proposals).toFixed(2).padStart(6)}` +
      `  ${grantedRate.toFixed(0).padStart(13)}  ${(grantedRate / proposals).toFixed(2).padStart(6)}` +
      `  ${raw.toFixed(0).padStart(12)}  ${(proposals / raw).toFixed(2).padStart(5)}`,
  );
}

// Executions here are reminder emails: a refund would change the invoice and (correctly) invalidate
// every other pending refund on it.
const proposeEmail = () =>
  proposeAction(db, {
    tenantId: tenant.id, requester: tenant.requester, tool: "send_email",
    args: { to: "billing@acme.example", subject: "Reminder", body: `Benchmark ${Math.random()}`, invoice_number: "INV-1042" },
  });

const percentile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

// Executions go ahead of new votes when connections run short (lib/db/sql.ts `urgently`), so the
// vote's own round trip is printed too: what that priority costs the reviewer's click.
console.log("\ncallers  decision→execution-start p50 / p99 (database clock)  vote round trip p50 / p99");
const latency: Record<number, { p50: number; p99: number }> = {};
for (const callers of LEVELS) {
  const perCaller = Math.max(4, Math.ceil(512 / callers));
  const pending: Array<{ actionId: string; payloadHash: string }> = [];
  for (let i = 0; i < callers * perCaller; i++) {
    const p = await proposeEmail();
    if (p.state === "pending") pending.push(p);
  }
  let next = 0;
  const votes: number[] = [];
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < pending.length) {
        const p = pending[next++];
        const voteStarted = performance.now();
        await decideAction(db, { tenantId: tenant.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: tenant.users.reviewer.member });
        votes.push(performance.now() - voteStarted);
        await executeAction(db, { tenantId: tenant.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: { type: "system", label: "bench" } });
      }
    }),
  );
  const rows = await db.$queryRaw<Array<{ ms: number }>>`
    SELECT EXTRACT(EPOCH FROM (s.at - d.at)) * 1000 AS ms
    FROM "AuditEvent" d JOIN "AuditEvent" s ON s."actionId" = d."actionId" AND s.type = 'execution.started'
    WHERE d.type = 'decision.recorded' AND d.status = 'approved' AND d."actionId" = ANY(${pending.map((p) => p.actionId)}::uuid[])`;
  const sorted = rows.map((r) => Number(r.ms)).sort((x, y) => x - y);
  const voteSorted = votes.sort((x, y) => x - y);
  latency[callers] = { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
  console.log(
    `${String(callers).padStart(7)}  ${percentile(sorted, 0.5).toFixed(1)} ms / ${percentile(sorted, 0.99).toFixed(1)} ms (${sorted.length} executions)` +
      `${" ".repeat(12)}${percentile(voteSorted, 0.5).toFixed(1)} ms / ${percentile(voteSorted, 0.99).toFixed(1)} ms`,
  );
}

const at16 = results[16];
console.log("\nTargets on 2 cores:");
console.log(`  ≥ 1,000 proposals/s at 16 callers: ${at16.proposals.toFixed(0)} → ${at16.proposals >= 1000 ? "met" : "NOT met"}`);
console.log(`  ≥ 0.25 × raw INSERT rate at 16 callers: ${(at16.proposals / at16.raw).toFixed(2)} → ${at16.proposals / at16.raw >= 0.25 ? "met" : "NOT met"}`);
console.log(`  budgeted ≥ 0.8 × plain proposals/s at 16 callers: ${(at16.budgeted / at16.proposals).toFixed(2)} → ${at16.budgeted >= 0.8 * at16.proposals ? "met" : "NOT met"}`);
console.log(`  with a grant in force ≥ 0.8 × plain proposals/s at 16 callers: ${(at16.beside / at16.proposals).toFixed(2)} → ${at16.beside >= 0.8 * at16.proposals ? "met" : "NOT met"}`);
console.log(`  p99 decision→execution-start ≤ 50 ms at 64 callers: ${latency[64].p99.toFixed(1)} ms → ${latency[64].p99 <= 50 ? "met" : "NOT met"}`);

await sealAllPending(db);
await pool.end();
await db.$disconnect();
await cluster.stop();
rmSync(dir, { recursive: true, force: true });
