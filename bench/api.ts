/**
 * Agent-API benchmark (a script, not a test): the built console (scripts/console-server.ts) on a throw-away
 * bundled PostgreSQL, driven over HTTP by 1, 16 and 64 simulated agents (closed loop, one API key
 * each), with /api/health probed every 50 ms and a page (/signin) every 250 ms throughout. Phases: a trivial route, submits the
 * policy allows, submits it sends to review, the long-poll for a reviewer's approval followed by
 * execute, three hostile inputs, a reviewer opening the page of an ordinary and of hostile payloads
 * (80,000 hidden characters, 50,000 short lines, or 100,000 characters of lookalike letters), and a flood (1,000 connections on the trivial
 * route) during which a person's page must still come back promptly. One table at the end, with the
 * targets of issue 13 beside it.
 *
 * First, per request kind (trivial route, allowed read, pending write, vote, execution of an approved
 * database action) at 1 and 64 agents: latency, rate, server CPU per request (the console and its
 * PostgreSQL backends, from /proc) and statements and transactions per request (pg_stat_statements,
 * pg_stat_database; node-postgres sends one statement per round trip).
 *
 *   npm run build && npm run bench:api [-- --duration=8] [-- --quick] [-- --kinds] [-- --hostile-cap=150] [-- --json[=FILE]] [-- --profile[=DIR]] [-- --statements] [-- --review-pages] [-- --node-options="FLAGS"] [-- --server-log=FILE]
 */
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Worker } from "node:worker_threads";
import { Client } from "pg";
import { encode } from "next-auth/jwt";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { startSignedInSession } from "@/lib/auth/start-signed-in-session";
import type { Member } from "@/lib/approvals/actors";
import { decideAction } from "@/lib/approvals/decide-action";
import { editAction } from "@/lib/approvals/edit-action";
import { createDb, embeddedPoolSize, type Db } from "@/lib/db/client";
import { BundledPostgresError, findFreePort, startEmbeddedPostgres, type EmbeddedCluster } from "@/lib/db/embedded-postgres";
import { migrateDatabase } from "@/lib/db/migrate";
import { INJECTION_NOTE, seedDemoTenant } from "@/lib/demo/seed";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import { processEnv, readEnv } from "@/lib/env";
import { consoleServerCommand } from "@/lib/server/console-command";

// ── options ──────────────────────────────────────────────────────────────────────────────────────

const KNOWN_OPTIONS = ["quick", "duration", "hostile-cap", "json", "profile", "statements", "review-pages", "kinds", "node-options", "server-log"];
const argv = process.argv.slice(2);
const option = (name: string) => argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
const optionValue = (name: string) => {
  const found = option(name);
  return found?.includes("=") ? found.slice(found.indexOf("=") + 1) : undefined;
};
const unknownOption = argv.find((a) => !KNOWN_OPTIONS.some((k) => a === `--${k}` || a.startsWith(`--${k}=`)));
const QUICK = option("quick") !== undefined;
const SECONDS = Number(optionValue("duration") ?? (QUICK ? 2 : 8));
const HOSTILE_CAP_SECONDS = Number(optionValue("hostile-cap") ?? (QUICK ? 60 : 150));
const JSON_FILE = option("json") === undefined ? null : (optionValue("json") ?? "bench-api.json");
/** Where the console's CPU profiles go (`node --cpu-prof`): its main thread and each worker thread, written when it stops. */
const PROFILE_DIR = option("profile") === undefined ? null : path.resolve(optionValue("profile") ?? "bench-api-profile");
/** Where PostgreSQL's time goes: the heaviest statements of each submit phase (pg_stat_statements), per request. */
const STATEMENTS = option("statements") !== undefined;
/** Only the review pages' phase (after the warm-up): to follow what a change to the action page does. */
const REVIEW_PAGES_ONLY = option("review-pages") !== undefined;
/** Only the per-kind table (after the warm-up): latency, rate, CPU and statements per request of each kind, at 1 and 64 agents. */
const KINDS_ONLY = option("kinds") !== undefined;
/** Flags for the console's node, space-separated (e.g. `--node-options="--trace-gc"`): to compare a runtime setting side by side. */
/** Where all of the console's output goes too (e.g. with `--node-options="--trace-gc"`). */
const SERVER_LOG_FILE = optionValue("server-log") ?? null;
const CONSOLE_NODE_OPTIONS = (optionValue("node-options") ?? "").split(" ").filter((o) => o !== "");
if (unknownOption || !(SECONDS > 0) || !(HOSTILE_CAP_SECONDS >= SECONDS)) {
  console.error(`✖ Usage: npm run bench:api -- [--quick] [--duration=SECONDS] [--hostile-cap=SECONDS ≥ duration] [--json[=FILE]] [--profile[=DIR]] [--statements] [--review-pages] [--kinds] [--node-options="FLAGS"] [--server-log=FILE]${unknownOption ? ` (unknown: ${unknownOption})` : ""}`);
  process.exit(1);
}

const LEVELS = [1, 16, 64];
const AGENTS = Math.max(...LEVELS);
/** Every request may take this long; the hostile inputs are expected to need it today. */
const REQUEST_TIMEOUT_MS = 120_000;
const HEALTH_EVERY_MS = 50;
/** A page a person would load, rendered by Next.js like any other: probed beside health. */
const PAGE_PATH = "/signin";
const PAGE_EVERY_MS = 250;
/** Connections of the flood phase: far more agent requests than are answered per turn, so they queue. */
const FLOOD_CONNECTIONS = 1_000;
/** The reviewer approves a random 0–800 ms after the agent starts waiting: two poll intervals (lib/api/wait-for-decision.ts). */
const DECIDE_DELAY_MAX_MS = 800;
const TARGET_RATIO = 0.6;
const TARGET_SUBMIT_P99_MS = 250;
const TARGET_HEALTH_P99_MS = 100;
const TARGET_HOLD_MS = 50;
const AGENT_TOOLS = ["get_invoice", "refund_invoice", "send_email", "run_python"];
const BENCH_AUTH_SECRET = "bench-secret-not-for-production-use-0123456789";

const root = process.cwd();
if (!existsSync(path.join(root, ".next", "BUILD_ID"))) {
  console.error("✖ No production build in .next: run `npm run build` first (bench:api measures the built console).");
  process.exit(1);
}

// ── teardown, also on Ctrl-C ─────────────────────────────────────────────────────────────────────

const dir = mkdtempSync(path.join(os.tmpdir(), "countersign-bench-api-"));
chmodSync(dir, 0o755); // the bundled PostgreSQL runs as `postgres` when we are root
let cluster: EmbeddedCluster | null = null;
let db: Db | null = null;
let server: ChildProcess | null = null;
let serverGone = false;
let stopping = false;
/** Aborts every request still in flight when the run is interrupted. */
const interrupted = new AbortController();
const serverLog: string[] = [];

function serverRunning(): boolean {
  return server !== null && server.exitCode === null && server.signalCode === null;
}

let tornDown: Promise<void> | null = null;
function teardown(): Promise<void> {
  tornDown ??= (async () => {
    stopping = true;
    interrupted.abort();
    if (server?.pid && serverRunning()) {
      const exited = new Promise((resolve) => server!.once("exit", resolve));
      // Its own process group (spawned detached): the server and anything it started.
      const signal = (name: NodeJS.Signals) => {
        try {
          process.kill(-server!.pid!, name);
        } catch {
          // already gone
        }
      };
      signal("SIGTERM");
      // A server whose event loop is blocked (the hostile inputs) cannot run its SIGTERM handler.
      if (await Promise.race([exited.then(() => false), sleep(5_000).then(() => true)])) {
        signal("SIGKILL");
        await Promise.race([exited, sleep(2_000)]);
      }
    }
    await db?.$disconnect().catch(() => {});
    await cluster?.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  })();
  return tornDown;
}

const INTERRUPTED = 130;
process.on("SIGINT", () => {
  console.error("\nInterrupted: stopping the console and the database…");
  void teardown().then(() => process.exit(INTERRUPTED));
});
process.on("SIGTERM", () => void teardown().then(() => process.exit(143)));

// ── HTTP ─────────────────────────────────────────────────────────────────────────────────────────

let port = 0;

/** One answer, or status 0 with why there was none (timeout, aborted, ECONNRESET…). */
type Reply = { status: number; code: string | null; body: string; ms: number; endedAt: number };

function errorCodeOf(status: number, body: string): string | null {
  if (status < 400) return null;
  try {
    return (JSON.parse(body) as { error?: { code?: string } }).error?.code ?? null;
  } catch {
    return null;
  }
}

function send(
  agent: http.Agent,
  method: "GET" | "POST",
  urlPath: string,
  options: { headers?: Record<string, string>; json?: unknown; signal?: AbortSignal } = {},
): Promise<Reply> {
  const payload = options.json === undefined ? undefined : Buffer.from(JSON.stringify(options.json));
  const headers: Record<string, string> = { ...options.headers };
  if (payload) {
    headers["content-type"] = "application/json";
    headers["content-length"] = String(payload.byteLength);
  }
  const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  const signal = AbortSignal.any([timeout, interrupted.signal, ...(options.signal ? [options.signal] : [])]);
  const started = performance.now();
  return new Promise((resolve) => {
    const finish = (status: number, body: string, code: string | null) => {
      const endedAt = performance.now();
      resolve({ status, body, code, ms: endedAt - started, endedAt });
    };
    const failed = (error: NodeJS.ErrnoException) =>
      finish(0, "", timeout.aborted ? "timeout" : signal.aborted ? "aborted" : (error.code ?? error.name));
    const req = http.request({ host: "127.0.0.1", port, method, path: urlPath, headers, agent, signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        finish(res.statusCode ?? 0, body, errorCodeOf(res.statusCode ?? 0, body));
      });
      res.on("error", failed);
    });
    req.on("error", failed);
    req.end(payload);
  });
}

/** Connections for one phase: one per agent, kept alive, closed at the phase's end. */
const connectionPool = () => new http.Agent({ keepAlive: true, maxSockets: 1024, maxFreeSockets: 1024 });

/** The refusal's message, or the submit's state and reason, in at most 160 characters. */
function messageOf(reply: Reply): string | null {
  try {
    const body = JSON.parse(reply.body) as { error?: { message?: string }; state?: string; reason?: string };
    const text = body.error?.message ?? (body.state ? `${body.state}${body.reason ? `: ${body.reason}` : ""}` : null);
    return text && text.length > 160 ? `${text.slice(0, 159)}…` : text;
  } catch {
    return null;
  }
}

const describe = (reply: Reply) => (reply.status === 0 ? `no answer (${reply.code})` : `${reply.status}${reply.code ? ` ${reply.code}` : ""}`);

// ── statistics ───────────────────────────────────────────────────────────────────────────────────

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

type Summary = { n: number; p50: number; p99: number; max: number };
const summarize = (values: number[]): Summary => ({ n: values.length, p50: percentile(values, 50), p99: percentile(values, 99), max: values.length ? Math.max(...values) : Number.NaN });

/** Successes (with their latencies) and failures by kind, for one kind of request. */
class Recorder {
  latencies: number[] = [];
  failures = new Map<string, number>();
  /** Counts the reply as a success when its status is the expected one (and `check` agrees). */
  take(reply: Reply, expected: number, check?: (body: string) => string | null): boolean {
    const problem = reply.status !== expected ? describe(reply) : (check?.(reply.body) ?? null);
    if (problem === null) {
      this.latencies.push(reply.ms);
      return true;
    }
    this.fail(problem);
    return false;
  }
  fail(what: string) {
    this.failures.set(what, (this.failures.get(what) ?? 0) + 1);
  }
  get failureText(): string {
    return [...this.failures].map(([what, n]) => `${what} ×${n}`).join(", ");
  }
}

const stateIs = (expected: string) => (body: string) => {
  let state: unknown;
  try {
    state = (JSON.parse(body) as { state?: unknown }).state;
  } catch {
    return "not JSON";
  }
  return state === expected ? null : `state ${String(state)}`;
};

// ── the probers ──────────────────────────────────────────────────────────────────────────────────

type ProbeSummary = Summary & { failed: number; failures: string };

/** /api/health and a person's page, each probed from a thread of its own, until `stop`. */
function startProbers() {
  const health = startProber("/api/health", HEALTH_EVERY_MS);
  const page = startProber(PAGE_PATH, PAGE_EVERY_MS);
  return {
    async stop(deadline = Number.POSITIVE_INFINITY): Promise<{ health: ProbeSummary; page: ProbeSummary }> {
      const [h, p] = await Promise.all([health.stop(deadline), page.stop(deadline)]);
      return { health: h, page: p };
    },
  };
}

/**
 * GET `probePath` every `everyMs` from a thread of its own (health-prober.mjs), until `stop`, which
 * waits for the outstanding probes or aborts them at `deadline` (their time so far is counted).
 */
function startProber(probePath: string, everyMs: number) {
  const worker = new Worker(new URL("./health-prober.mjs", import.meta.url), { workerData: { port, path: probePath, everyMs, timeoutMs: REQUEST_TIMEOUT_MS } });
  return {
    async stop(deadline = Number.POSITIVE_INFINITY): Promise<ProbeSummary> {
      const wait = deadline - performance.now();
      const answered = once(worker, "message") as Promise<[Array<{ status: number; ms: number; code: string | null }>]>;
      worker.postMessage({ waitMs: Number.isFinite(wait) ? Math.max(0, wait) : null });
      const [done] = await answered;
      await worker.terminate();
      const recorder = new Recorder();
      for (const probe of done) recorder.take({ ...probe, body: "", endedAt: 0 }, 200);
      return { ...summarize(done.map((p) => p.ms)), failed: done.length - recorder.latencies.length, failures: recorder.failureText };
    },
  };
}

// ── where the CPU went (Linux /proc; the machine is shared and the load generator runs on it too) ──

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux everywhere in practice). */
const TICKS_PER_SECOND = 100;

function procTicks(pid: number): { ticks: number; ppid: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" "); // fields[0] is field 3 (state)
    return { ticks: Number(fields[11]) + Number(fields[12]), ppid: Number(fields[1]) };
  } catch {
    return null;
  }
}

/** CPU ticks of the bundled cluster's postmaster and its backends, by pid. */
function postgresTicks(): Map<number, number> {
  const ticks = new Map<number, number>();
  if (!cluster) return ticks;
  const pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name)).map(Number);
  const postmaster = pids.find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(cluster!.pgDir);
    } catch {
      return false;
    }
  });
  if (postmaster === undefined) return ticks;
  for (const pid of pids) {
    const stat = procTicks(pid);
    if (stat && (pid === postmaster || stat.ppid === postmaster)) ticks.set(pid, stat.ticks);
  }
  return ticks;
}

/** Ticks used since `before` by the processes alive now (a backend that exited meanwhile is not counted). */
function ticksSince(before: Map<number, number>, now: Map<number, number>): number {
  let sum = 0;
  for (const [pid, ticks] of now) sum += ticks - (before.get(pid) ?? 0);
  return sum;
}

function machineTicks(): { busy: number; total: number } {
  try {
    const [, ...numbers] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/);
    const values = numbers.slice(0, 8).map(Number); // user nice system idle iowait irq softirq steal
    const total = values.reduce((a, b) => a + b, 0);
    return { busy: total - values[3] - values[4], total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

/** Share of one core, in percent, per process group over a phase; machine = all cores busy, in percent. */
type CpuShare = { client: number; console: number; postgres: number; machineBusy: number };

function cpuMeter() {
  const started = performance.now();
  const client = process.cpuUsage();
  const consoleTicks = server?.pid ? (procTicks(server.pid)?.ticks ?? 0) : 0;
  const pg = postgresTicks();
  const machine = machineTicks();
  return (): CpuShare => {
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(client);
    const nowMachine = machineTicks();
    const pct = (ticks: number) => (100 * ticks) / TICKS_PER_SECOND / seconds;
    return {
      client: (100 * (used.user + used.system)) / 1e6 / seconds,
      console: pct((server?.pid ? (procTicks(server.pid)?.ticks ?? 0) : 0) - consoleTicks),
      postgres: pct(ticksSince(pg, postgresTicks())),
      machineBusy: nowMachine.total > machine.total ? (100 * (nowMachine.busy - machine.busy)) / (nowMachine.total - machine.total) : Number.NaN,
    };
  };
}

const cpuText = (c: CpuShare) =>
  `cpu: client ${c.client.toFixed(0)}%, console ${c.console.toFixed(0)}%, postgres ${c.postgres.toFixed(0)}% of a core; machine ${c.machineBusy.toFixed(0)}% busy`;

// ── set-up ───────────────────────────────────────────────────────────────────────────────────────

type AgentKey = { name: string; headers: Record<string, string> };

async function setUp(): Promise<{ keys: AgentKey[]; tenantId: string; reviewer: Member; reviewerCookie: string; poolSize: number; sandbox: string }> {
  cluster = await startEmbeddedPostgres({
    dataDir: dir, port: 58_500, ephemeral: true,
    // Always loaded: the per-kind table counts statements per request (top level, BEGIN and COMMIT included).
    settings: { shared_preload_libraries: "pg_stat_statements", "pg_stat_statements.track": "top" },
  });
  const admin = new Client({ connectionString: cluster.url() });
  await admin.connect();
  await admin.query("CREATE DATABASE countersign");
  await admin.end();
  // Migrated as the owner; the console under test and the bench connect as the app role, as in npm start.
  const databaseUrl = cluster.appUrl("countersign");
  await migrateDatabase(cluster.url("countersign"), { appRole: cluster.appRole }, root);
  await asOwner((c) => c.query("CREATE EXTENSION pg_stat_statements"));
  db = createDb(databaseUrl, { max: 4 });
  const { tenantId } = await seedDemoTenant(db, DEFAULT_POLICY);

  const adminUser = await db.user.findUniqueOrThrow({ where: { email: "admin@demo.test" }, select: { id: true } });
  const reviewerUser = await db.user.findUniqueOrThrow({ where: { email: "reviewer@demo.test" }, select: { id: true, email: true, passwordHash: true } });
  // The reviewer signed in, as a browser would be after the sign-in form: a session row and its cookie.
  const session = await startSignedInSession(db, { userId: reviewerUser.id, method: "credentials", verifiedPasswordHash: reviewerUser.passwordHash!, clientAddress: "127.0.0.1", userAgent: "bench:api" });
  if (!session.started) throw new Error(`The bench's reviewer could not sign in: ${session.refused}.`);
  const { sessionId } = session;
  const reviewer: Member = { userId: reviewerUser.id, label: reviewerUser.email, roles: ["reviewer"], sessionId };
  const reviewerCookie = `next-auth.session-token=${await encode({ token: { sub: reviewerUser.id, sid: sessionId }, secret: BENCH_AUTH_SECRET })}`;
  const keys: AgentKey[] = [];
  for (let i = 1; i <= AGENTS; i++) {
    const name = `bench-agent-${String(i).padStart(2, "0")}`;
    const { secret } = await createApiKey(db, { tenantId, name, allowedTools: AGENT_TOOLS, createdById: adminUser.id });
    keys.push({ name, headers: { authorization: `Bearer ${secret}` } });
  }

  port = await findFreePort(3_960);
  const poolSize = readEnv("DATABASE_POOL_SIZE") ?? embeddedPoolSize();
  const profileArgs = PROFILE_DIR === null ? [] : ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`];
  const command = consoleServerCommand({ root, port, hostname: "127.0.0.1", nodeOptions: [...profileArgs, ...CONSOLE_NODE_OPTIONS] });
  server = spawn(command.command, command.args, {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...processEnv(),
      DATABASE_URL: databaseUrl,
      NEXTAUTH_URL: `http://127.0.0.1:${port}`,
      NEXTAUTH_SECRET: BENCH_AUTH_SECRET,
      // As `npm start` runs it with the bundled PostgreSQL (scripts/start.ts).
      COUNTERSIGN_IN_PROCESS_WORKER: "1",
      DATABASE_POOL_SIZE: String(poolSize),
      // The per-key limit (120 a minute by default) would otherwise be what is measured.
      COUNTERSIGN_API_RATE_LIMIT: "1000000",
    },
  });
  if (SERVER_LOG_FILE) writeFileSync(SERVER_LOG_FILE, "");
  const keepTail = (chunk: Buffer) => {
    if (SERVER_LOG_FILE) appendFileSync(SERVER_LOG_FILE, chunk);
    serverLog.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    serverLog.splice(0, Math.max(0, serverLog.length - 40));
  };
  server.stdout?.on("data", keepTail);
  server.stderr?.on("data", keepTail);
  server.on("exit", () => {
    serverGone = true;
  });

  const agent = connectionPool();
  let sandbox = "";
  for (let i = 0; ; i++) {
    if (serverGone) throw new Error("The console exited during start-up.");
    if (i > 240) throw new Error("The console did not answer /api/health within 2 minutes.");
    const reply = await send(agent, "GET", "/api/health");
    if (reply.status === 200) {
      // Code proposals depend on it: without a sandbox they are refused after the pre-scan.
      const health = JSON.parse(reply.body) as { sandbox?: { available?: boolean; reason?: string } };
      sandbox = health.sandbox?.available ? `sandbox: ${health.sandbox.reason}` : `no sandbox (${health.sandbox?.reason ?? "unknown"})`;
      break;
    }
    await sleep(500);
  }
  agent.destroy();
  return { keys, tenantId, reviewer, reviewerCookie, poolSize, sandbox };
}

// ── phases ───────────────────────────────────────────────────────────────────────────────────────

/** `concurrency` agents, each sending its next request when the last is answered, for `seconds`. */
async function closedLoop(concurrency: number, seconds: number, work: (agentIndex: number, connections: http.Agent) => Promise<void>): Promise<number> {
  const connections = connectionPool();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, agentIndex) => {
      while (performance.now() < deadline && !stopping && !serverGone) await work(agentIndex, connections);
    }),
  );
  connections.destroy();
  return (performance.now() - started) / 1000;
}

/** A statement as the owner of the benchmark's database (pg_stat_statements needs it). */
async function asOwner<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: cluster!.url("countersign") });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

type StatementCost = { query: string; calls: number; totalMs: number; meanMs: number; rowsPerCall: number };
/** Statements since the last reset, and the tables read by sequential scans (rows read: a missing index shows here). */
type StatementReport = { totalMs: number; top: StatementCost[]; seqScans: Array<{ table: string; scans: number; rowsRead: number }> };

/** The heaviest statements since the last reset (by total execution time), then a reset. */
async function heaviestStatements(limit = 6): Promise<StatementReport> {
  return asOwner(async (c) => {
    const { rows } = await c.query<{ query: string; calls: string; total: number; rows: string }>(
      `SELECT s.query, s.calls::text, s.total_exec_time AS total, s.rows::text FROM pg_stat_statements s
       JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = 'countersign' AND s.query NOT ILIKE '%pg_stat_statements%'
       ORDER BY s.total_exec_time DESC`,
    );
    const { rows: scans } = await c.query<{ table: string; scans: string; read: string }>(
      `SELECT relname AS table, seq_scan::text AS scans, seq_tup_read::text AS read FROM pg_stat_user_tables
       WHERE seq_tup_read > 0 ORDER BY seq_tup_read DESC LIMIT 4`,
    );
    await c.query("SELECT pg_stat_statements_reset(), pg_stat_reset()");
    const top = rows.slice(0, limit).map((r) => ({
      query: r.query.replace(/\s+/g, " ").slice(0, 110), calls: Number(r.calls), totalMs: r.total,
      meanMs: r.total / Math.max(1, Number(r.calls)), rowsPerCall: Number(r.rows) / Math.max(1, Number(r.calls)),
    }));
    return {
      totalMs: rows.reduce((n, r) => n + r.total, 0), top,
      seqScans: scans.map((r) => ({ table: r.table, scans: Number(r.scans), rowsRead: Number(r.read) })),
    };
  });
}

/** Statements (top level, BEGIN and COMMIT included) and transactions run in the benchmark's database so far. */
async function databaseWork(): Promise<{ statements: number; transactions: number }> {
  return asOwner(async (c) => {
    const { rows: [row] } = await c.query<{ statements: string | null; transactions: string }>(
      `SELECT (SELECT sum(s.calls) FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
                WHERE d.datname = 'countersign' AND s.query NOT ILIKE '%pg_stat%')::text AS statements,
              (SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = 'countersign')::text AS transactions`,
    );
    return { statements: Number(row.statements ?? 0), transactions: Number(row.transactions) };
  });
}

/** One kind of request at one level: what it cost the server per request, and how long it took. */
type KindPhase = {
  kind: string; agents: number; perSecond: number; latency: Summary; failures: string;
  /** Server CPU per request (ms): the console, its PostgreSQL backends, and for an in-process vote the bench's own. */
  consoleMs: number; postgresMs: number; inProcessMs: number;
  statements: number; transactions: number;
};

/**
 * `agents` in a closed loop on one kind of request for `seconds` (or until `one` says there is no
 * more work), with nothing else sent meanwhile (no probers): CPU and statements per request.
 */
async function kindPhase(
  kind: string, agents: number, seconds: number, one: (agentIndex: number, connections: http.Agent, recorder: Recorder) => Promise<boolean | void>,
  options: { inProcess?: boolean } = {},
): Promise<KindPhase> {
  const recorder = new Recorder();
  await sleep(300); // the last phase's sealing and its worker's passes settle first
  const before = await databaseWork();
  const consoleBefore = server?.pid ? (procTicks(server.pid)?.ticks ?? 0) : 0;
  const pgBefore = postgresTicks();
  const clientBefore = process.cpuUsage();
  const connections = connectionPool();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let exhausted = false;
  await Promise.all(
    Array.from({ length: agents }, async (_, agentIndex) => {
      while (!exhausted && performance.now() < deadline && !stopping && !serverGone) {
        if ((await one(agentIndex, connections, recorder)) === false) exhausted = true;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  connections.destroy();
  // What the requests left for the server to finish (sealing, the worker) counts too; and
  // PostgreSQL's backends report their transactions within a second.
  await sleep(1_100);
  const client = process.cpuUsage(clientBefore);
  const consoleTicks = (server?.pid ? (procTicks(server.pid)?.ticks ?? 0) : 0) - consoleBefore;
  const pgTicks = ticksSince(pgBefore, postgresTicks());
  const after = await databaseWork();
  const n = Math.max(1, recorder.latencies.length);
  const tickMs = 1000 / TICKS_PER_SECOND;
  return {
    kind, agents, perSecond: recorder.latencies.length / elapsed, latency: summarize(recorder.latencies), failures: recorder.failureText,
    consoleMs: (consoleTicks * tickMs) / n, postgresMs: (pgTicks * tickMs) / n,
    inProcessMs: options.inProcess ? (client.user + client.system) / 1000 / n : 0,
    // The counting query itself is one statement and one transaction.
    statements: (after.statements - before.statements) / n, transactions: (after.transactions - before.transactions - 1) / n,
  };
}

type RatePhase = {
  agents: number; seconds: number; perSecond: number; latency: Summary; failures: string; health: ProbeSummary; page: ProbeSummary; cpu: CpuShare;
  statements?: StatementReport;
};

async function ratePhase(agents: number, seconds: number, one: (agentIndex: number, connections: http.Agent, recorder: Recorder) => Promise<void>): Promise<RatePhase> {
  const recorder = new Recorder();
  if (STATEMENTS) await heaviestStatements();
  const prober = startProbers();
  const cpu = cpuMeter();
  const elapsed = await closedLoop(agents, seconds, (i, connections) => one(i, connections, recorder));
  const cpuShare = cpu();
  const { health, page } = await prober.stop();
  return {
    agents, seconds: elapsed, perSecond: recorder.latencies.length / elapsed, latency: summarize(recorder.latencies),
    failures: recorder.failureText, health, page, cpu: cpuShare, ...(STATEMENTS ? { statements: await heaviestStatements() } : {}),
  };
}

type DecisionPhase = {
  agents: number;
  cyclesPerSecond: number;
  decisionToAgent: Summary;
  execute: Summary;
  vote: Summary;
  failures: string;
  health: ProbeSummary;
  page: ProbeSummary;
  cpu: CpuShare;
};

type HostileInput = { name: string; shape: string; body: Record<string, unknown> };

const HOSTILE: HostileInput[] = [
  { name: "dotted name", shape: `code "a" + ".b" × 49,999 (100,000 chars)`, body: { code: "a" + ".b".repeat(49_999), language: "python" } },
  { name: "nested calls", shape: `code "f(" × 20,000 + ")" × 20,000 (80,000 chars)`, body: { code: "f(".repeat(20_000) + ")".repeat(20_000), language: "python" } },
  {
    name: "long comment",
    shape: `code "#" + "x" × 99,999 (100,000 chars), 1 untrustedValues entry (${INJECTION_NOTE.length} chars)`,
    body: { code: "#" + "x".repeat(99_999), language: "python", untrustedValues: [INJECTION_NOTE] },
  },
];

type HostileRequest = { input: string; startedAt: number; status: number; code: string | null; message: string | null; ms: number };
type HostilePhase = {
  seconds: number; capSeconds: number; cappedAt: number | null; requests: HostileRequest[]; health: ProbeSummary; page: ProbeSummary; cpu: CpuShare;
};

/**
 * The code of an action a reviewer opens again and again: an ordinary one, and those a hostile agent
 * could send; with `edited`, a reviewer then saved that code as revision 2 (the page shows their diff).
 */
const REVIEW_PAGES: Array<{ name: string; shape: string; code: string; edited?: string }> = [
  { name: "ordinary code", shape: "4 lines of Python", code: "rows = [1, 2, 3]\ntotal = sum(rows)\n# add them up\nprint('total', total)\n" },
  // Three bytes each in UTF-8: 80,000 of them is about as many as the 256 KB body limit takes.
  { name: "hidden characters", shape: `"# " + U+200B U+200C × 40,000 (80,002 chars, each a marker)`, code: "# " + "\u200b\u200c".repeat(40_000) },
  { name: "many lines", shape: `"x\\n" × 49,999 (99,998 chars, a numbered line each)`, code: "x\n".repeat(49_999) },
  { name: "many findings", shape: `"import pickle\\n" × 7,142 (99,988 chars, a scan finding on every line)`, code: "import pickle\n".repeat(7_142) },
  {
    name: "an edit of many lines", shape: `"x\\n" × 49,999, then line 25,000 edited by a reviewer (a diff of 50,000 lines)`,
    code: "x\n".repeat(49_999), edited: "x\n".repeat(24_999) + "y\n" + "x\n".repeat(24_999),
  },
  { name: "lookalike letters", shape: `"# " + "pаypаl " × 14,285 (100,000 chars, a Cyrillic а in every word)`, code: "# " + "p\u0430yp\u0430l ".repeat(14_285) },
];
type ReviewPagePhase = { name: string; shape: string; htmlBytes: number; pages: Summary; perSecond: number; failures: string; health: ProbeSummary; page: ProbeSummary; cpu: CpuShare };

/** The per-kind table: each kind at 1 agent and at 64, side by side, with the trivial route as the yardstick. */
function printKinds(phases: KindPhase[]): void {
  const f = (ms: number) => (Number.isNaN(ms) ? "—" : ms >= 100 ? ms.toFixed(0) : ms.toFixed(2));
  console.log("\nPer request kind (no probers; CPU = console + its PostgreSQL backends, and the bench's own for the in-process vote;");
  console.log("statements = top-level statements incl. BEGIN/COMMIT per request, sealing and the worker included: one round trip each)");
  console.log(`${"kind".padEnd(20)} ${"agents".padStart(6)} ${"req/s".padStart(7)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)} ${"CPU ms/req".padStart(10)} ${"(console".padStart(8)} ${"pg".padStart(5)} ${"bench)".padStart(6)} ${"stmts/req".padStart(9)} ${"xacts/req".padStart(9)}`);
  for (const k of phases) {
    console.log(
      `${k.kind.padEnd(20)} ${String(k.agents).padStart(6)} ${k.perSecond.toFixed(0).padStart(7)} ${f(k.latency.p50).padStart(7)} ${f(k.latency.p99).padStart(7)}` +
        ` ${f(k.consoleMs + k.postgresMs + k.inProcessMs).padStart(10)} ${f(k.consoleMs).padStart(8)} ${f(k.postgresMs).padStart(5)} ${f(k.inProcessMs).padStart(6)}` +
        ` ${k.statements.toFixed(1).padStart(9)} ${k.transactions.toFixed(2).padStart(9)}${k.failures ? `  FAILED: ${k.failures}` : ""}`,
    );
  }
}

async function main() {
  const setUpStarted = performance.now();
  const { keys, tenantId, reviewer, reviewerCookie, poolSize, sandbox } = await setUp();
  const header =
    `Countersign agent-API benchmark — ${os.availableParallelism()} cores (${os.cpus()[0]?.model.trim() ?? "unknown CPU"}), Node ${process.version}, ` +
    `${os.platform()} ${os.arch()}\nbuilt console (scripts/console-server.ts) on port ${port}, bundled PostgreSQL 17, pool of ${poolSize} connections; ` +
    `${SECONDS} s per phase${QUICK ? " (--quick)" : ""}; load average at start ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}; ` +
    `set-up ${((performance.now() - setUpStarted) / 1000).toFixed(1)} s\n${sandbox}`;
  console.log(`${header}\n`);

  const submit = (agentIndex: number, connections: http.Agent, json: unknown) =>
    send(connections, "POST", "/api/v1/actions", { headers: keys[agentIndex].headers, json });
  const readCall = () => ({ tool: "get_invoice", args: { invoice_number: "INV-1042" } });
  // Above the two-approver threshold (1,000.00), below the deny limit and INV-1044's 12,000.00 paid.
  const writeCall = () => ({
    tool: "refund_invoice",
    args: { invoice_number: "INV-1044", amount_minor: 100_001 + Math.floor(Math.random() * 50_000), reason: "Benchmark refund" },
  });
  // Email executes leave the other pending emails valid (a refund would change the invoice).
  const emailCall = () => ({
    tool: "send_email",
    args: { to: "billing@acme.example", subject: "Reminder", body: `Benchmark ${Math.random()}`, invoice_number: "INV-1042" },
  });

  const trivial = (_i: number, c: http.Agent, r: Recorder) => send(c, "GET", "/api/v1/openapi.json").then((reply) => void r.take(reply, 200));
  const read = (i: number, c: http.Agent, r: Recorder) => submit(i, c, readCall()).then((reply) => void r.take(reply, 200, stateIs("allowed")));
  const write = (i: number, c: http.Agent, r: Recorder) => submit(i, c, writeCall()).then((reply) => void r.take(reply, 201, stateIs("pending")));

  async function decisionPhase(agents: number, seconds: number): Promise<DecisionPhase> {
    const steps = new Recorder(); // submit and long-poll: only their failures are reported here
    const decisionToAgent: number[] = [];
    const execute = new Recorder();
    const votes: number[] = [];
    let cycles = 0;
    const prober = startProbers();
    const cpu = cpuMeter();
    const elapsed = await closedLoop(agents, seconds, async (i, connections) => {
      const submitted = await submit(i, connections, emailCall());
      if (!steps.take(submitted, 201, stateIs("pending"))) return;
      const { id, payloadHash } = JSON.parse(submitted.body) as { id: string; payloadHash: string };
      const giveUp = new AbortController();
      const poll = send(connections, "GET", `/api/v1/actions/${id}/decision?timeout=30`, { headers: keys[i].headers, signal: giveUp.signal });
      const decided = (async () => {
        await sleep(Math.random() * DECIDE_DELAY_MAX_MS);
        const started = performance.now();
        await decideAction(db!, { tenantId, actionId: id, verdict: "approve", payloadHash, reviewer });
        // When the vote has committed, as far as this process can tell (it is on the same clock as the agent).
        const at = performance.now();
        votes.push(at - started);
        return at;
      })().catch((error: unknown) => {
        giveUp.abort();
        steps.fail(`vote failed: ${error instanceof Error ? error.message : String(error)}`);
        return null;
      });
      const [answer, decidedAt] = await Promise.all([poll, decided]);
      if (decidedAt === null || !steps.take(answer, 200, stateIs("approved"))) return;
      decisionToAgent.push(answer.endedAt - decidedAt);
      const executed = await send(connections, "POST", `/api/v1/actions/${id}/execute`, {
        headers: { ...keys[i].headers, "idempotency-key": `bench-${id}` },
        json: { payloadHash },
      });
      if (execute.take(executed, 200, stateIs("succeeded"))) cycles++;
    });
    const cpuShare = cpu();
    const { health, page } = await prober.stop();
    const failures = [steps.failureText, execute.failureText].filter(Boolean).join(", ");
    return {
      agents, cyclesPerSecond: cycles / elapsed, decisionToAgent: summarize(decisionToAgent),
      execute: summarize(execute.latencies), vote: summarize(votes), failures, health, page, cpu: cpuShare,
    };
  }

  async function hostilePhase(seconds: number): Promise<HostilePhase> {
    const started = performance.now();
    const capAt = started + HOSTILE_CAP_SECONDS * 1000;
    const deadline = started + seconds * 1000;
    const cap = new AbortController();
    const capTimer = setTimeout(() => cap.abort(), HOSTILE_CAP_SECONDS * 1000);
    const prober = startProbers();
    const cpu = cpuMeter();
    const connections = connectionPool();
    const requests: HostileRequest[] = [];
    // One agent per input, each sending it again as soon as it is answered.
    await Promise.all(
      HOSTILE.map(async (input, i) => {
        while (performance.now() < deadline && !cap.signal.aborted && !stopping && !serverGone) {
          const sentAt = performance.now();
          const reply = await send(connections, "POST", "/api/v1/actions", { headers: keys[i].headers, json: input.body, signal: cap.signal });
          requests.push({ input: input.name, startedAt: (sentAt - started) / 1000, status: reply.status, code: reply.code, message: messageOf(reply), ms: reply.ms });
        }
      }),
    );
    clearTimeout(capTimer);
    const { health, page } = await prober.stop(capAt);
    const cpuShare = cpu();
    connections.destroy();
    return {
      seconds: (performance.now() - started) / 1000, capSeconds: HOSTILE_CAP_SECONDS, cappedAt: cap.signal.aborted ? HOSTILE_CAP_SECONDS : null,
      requests, health, page, cpu: cpuShare,
    };
  }

  /** One reviewer opening the page of an action with `code`, again as soon as it arrives, for `seconds`. */
  async function reviewPagePhase(input: (typeof REVIEW_PAGES)[number], seconds: number): Promise<ReviewPagePhase> {
    const connections = connectionPool();
    const proposed = await submit(0, connections, { tool: "run_python", args: { code: input.code, language: "python" } });
    if (proposed.status !== 201 && proposed.status !== 200) throw new Error(`The ${input.name} action was not proposed: ${describe(proposed)} ${messageOf(proposed) ?? ""}`);
    const { id, payloadHash } = JSON.parse(proposed.body) as { id: string; payloadHash: string };
    if (input.edited !== undefined) await editAction(db!, { tenantId, actionId: id, editor: reviewer, payloadHash, args: { code: input.edited, language: "python" } });
    const open = () => send(connections, "GET", `/actions/${id}`, { headers: { cookie: reviewerCookie } });
    const first = await open(); // its modules loaded, as for every other phase
    const pages = new Recorder();
    const isThePage = (body: string) => (body.includes('id="code-line-1"') ? null : "not the action's page");
    const prober = startProbers();
    const cpu = cpuMeter();
    const started = performance.now();
    while (performance.now() - started < seconds * 1000 && !stopping && !serverGone) pages.take(await open(), 200, isThePage);
    const elapsed = (performance.now() - started) / 1000;
    const cpuShare = cpu();
    const { health, page } = await prober.stop();
    connections.destroy();
    return {
      name: input.name, shape: input.shape, htmlBytes: Buffer.byteLength(first.body), pages: summarize(pages.latencies),
      perSecond: pages.latencies.length / elapsed, failures: pages.failureText, health, page, cpu: cpuShare,
    };
  }

  // Warm-up: the first request to each route loads its module.
  const warm = await closedLoop(4, QUICK ? 0.5 : 1, async (i, c) => {
    await trivial(i, c, new Recorder());
    await read(i, c, new Recorder());
    await write(i, c, new Recorder());
  });
  await decisionPhase(4, QUICK ? 0.5 : 1);
  console.log(`warm-up done (${warm.toFixed(1)} s)\n`);

  // ── per request kind: what one request costs the server ──────────────────────────────────────
  /** Pending emails proposed ahead of a vote phase: more than it can vote on. */
  async function proposePendingEmails(count: number): Promise<Array<{ id: string; payloadHash: string; agentIndex: number }>> {
    const proposed: Array<{ id: string; payloadHash: string; agentIndex: number }> = [];
    const failed = new Recorder();
    let next = 0;
    const connections = connectionPool();
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < count && !stopping && !serverGone) {
        const agentIndex = next++ % AGENTS;
        const reply = await submit(agentIndex, connections, emailCall());
        if (failed.take(reply, 201, stateIs("pending"))) {
          const { id, payloadHash } = JSON.parse(reply.body) as { id: string; payloadHash: string };
          proposed.push({ id, payloadHash, agentIndex });
        }
      }
    }));
    connections.destroy();
    if (failed.failureText) console.log(`  (proposing emails to vote on: ${failed.failureText})`);
    return proposed;
  }

  async function kindLevel(agents: number): Promise<KindPhase[]> {
    const phases: KindPhase[] = [];
    phases.push(await kindPhase("trivial route", agents, SECONDS, trivial));
    phases.push(await kindPhase("allowed read", agents, SECONDS, read));
    phases.push(await kindPhase("pending write", agents, SECONDS, write));
    const toVote = await proposePendingEmails(Math.ceil(SECONDS * 350));
    const approved: typeof toVote = [];
    phases.push(await kindPhase("vote (in-process)", agents, SECONDS, async (_i, _c, recorder) => {
      const action = toVote.pop();
      if (!action) return false;
      const started = performance.now();
      try {
        const outcome = await decideAction(db!, { tenantId, actionId: action.id, verdict: "approve", payloadHash: action.payloadHash, reviewer });
        const ms = performance.now() - started;
        if (outcome.status === "approved") {
          recorder.take({ status: 200, code: null, body: "", ms, endedAt: 0 }, 200);
          approved.push(action);
        } else recorder.fail(`status ${outcome.status}`);
      } catch (error) {
        recorder.fail(error instanceof Error ? error.message.slice(0, 80) : String(error));
      }
    }, { inProcess: true }));
    phases.push(await kindPhase("execute (db action)", agents, SECONDS, async (_i, connections, recorder) => {
      const action = approved.pop();
      if (!action) return false;
      const reply = await send(connections, "POST", `/api/v1/actions/${action.id}/execute`, {
        headers: { ...keys[action.agentIndex].headers, "idempotency-key": `bench-kind-${action.id}` },
        json: { payloadHash: action.payloadHash },
      });
      recorder.take(reply, 200, stateIs("succeeded"));
    }));
    return phases;
  }

  const kindResults: KindPhase[] = [];
  for (const agents of REVIEW_PAGES_ONLY ? [] : [1, AGENTS]) {
    if (stopping || serverGone) break;
    kindResults.push(...(await kindLevel(agents)));
  }
  if (kindResults.length > 0) printKinds(kindResults);
  if (KINDS_ONLY) {
    if (JSON_FILE) writeFileSync(JSON_FILE, JSON.stringify({ at: new Date().toISOString(), secondsPerPhase: SECONDS, poolSize, kinds: kindResults }, null, 2));
    return stopping ? INTERRUPTED : serverGone ? 1 : 0;
  }

  const fmt = (ms: number) => (Number.isNaN(ms) ? "—" : ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
  const line = (label: string, r: RatePhase) =>
    console.log(
      `  ${label.padEnd(13)} ${String(r.agents).padStart(2)} agents: ${r.perSecond.toFixed(0).padStart(5)} req/s, p50 ${fmt(r.latency.p50)} ms, p99 ${fmt(r.latency.p99)} ms` +
        `; health p50 ${fmt(r.health.p50)} / p99 ${fmt(r.health.p99)} ms; page p50 ${fmt(r.page.p50)} / p99 ${fmt(r.page.p99)} ms` +
        `${r.failures ? `; FAILED: ${r.failures}` : ""}${probeFailures(r)}` +
        `\n${" ".repeat(27)}${cpuText(r.cpu)}` +
        (r.statements ? statementsText(r.statements, r.perSecond * r.seconds) : ""),
    );
  const probeFailures = (p: { health: ProbeSummary; page: ProbeSummary }) =>
    `${p.health.failed ? `; health failed: ${p.health.failures}` : ""}${p.page.failed ? `; page failed: ${p.page.failures}` : ""}`;
  const statementsText = (s: StatementReport, requests: number) =>
    `\n${" ".repeat(27)}PostgreSQL: ${fmt(s.totalMs / Math.max(1, requests))} ms of statements per request; heaviest:` +
    s.top.map((q) => `\n${" ".repeat(29)}${fmt(q.totalMs / Math.max(1, requests)).padStart(5)} ms/req  ${(q.calls / Math.max(1, requests)).toFixed(2)} calls/req  ${fmt(q.meanMs)} ms each  ${q.query}`).join("") +
    `\n${" ".repeat(27)}sequential scans: ${s.seqScans.map((t) => `${t.table} ${(t.rowsRead / Math.max(1, requests)).toFixed(0)} rows/req`).join(", ") || "none"}`;

  const results: Array<{ agents: number; trivial: RatePhase; read: RatePhase; write: RatePhase; decision: DecisionPhase }> = [];
  // Interrupted (Ctrl-C) or the console gone: no more phases, and a level cut short is not reported.
  const halted = () => stopping || serverGone;
  for (const agents of REVIEW_PAGES_ONLY ? [] : LEVELS) {
    if (halted()) break;
    const t = await ratePhase(agents, SECONDS, trivial);
    if (halted()) break;
    line("trivial", t);
    const r = await ratePhase(agents, SECONDS, read);
    if (halted()) break;
    line("submit read", r);
    const w = await ratePhase(agents, SECONDS, write);
    if (halted()) break;
    line("submit write", w);
    const d = await decisionPhase(agents, SECONDS);
    if (halted()) break;
    console.log(
      `  ${"poll+execute".padEnd(13)} ${String(agents).padStart(2)} agents: ${d.cyclesPerSecond.toFixed(0).padStart(5)} cycles/s, decision→agent p50 ${fmt(d.decisionToAgent.p50)} / p99 ${fmt(d.decisionToAgent.p99)} ms` +
        `, execute p50 ${fmt(d.execute.p50)} / p99 ${fmt(d.execute.p99)} ms; health p99 ${fmt(d.health.p99)} ms; page p99 ${fmt(d.page.p99)} ms` +
        `${d.failures ? `; FAILED: ${d.failures}` : ""}${probeFailures(d)}` +
        `\n${" ".repeat(27)}${cpuText(d.cpu)}`,
    );
    results.push({ agents, trivial: t, read: r, write: w, decision: d });
  }

  let hostile: HostilePhase | null = null;
  if (!halted() && !REVIEW_PAGES_ONLY) {
    console.log(`  hostile: ${HOSTILE.length} agents for ${SECONDS} s, each request allowed ${REQUEST_TIMEOUT_MS / 1000} s, the phase at most ${HOSTILE_CAP_SECONDS} s…`);
    hostile = await hostilePhase(SECONDS);
  }
  const reviewPages: ReviewPagePhase[] = [];
  for (const input of REVIEW_PAGES) {
    if (halted()) break;
    console.log(`  review page: ${input.name} for ${SECONDS} s…`);
    reviewPages.push(await reviewPagePhase(input, SECONDS));
  }
  let flood: RatePhase | null = null;
  if (!halted() && !REVIEW_PAGES_ONLY) {
    console.log(`  flood: ${FLOOD_CONNECTIONS} connections on the trivial route for ${SECONDS} s…`);
    flood = await ratePhase(FLOOD_CONNECTIONS, SECONDS, trivial);
  }
  if (stopping) return INTERRUPTED;
  const serverDied = serverGone && !stopping;

  // ── report ─────────────────────────────────────────────────────────────────────────────────────

  const mark = (ok: boolean) => (ok ? "met" : "NOT met");
  const pad = (s: string, n: number) => s.padStart(n);
  const pair = (s: Summary) => `${fmt(s.p50)} / ${fmt(s.p99)}`;
  console.log(
    `\nAgent API, ${SECONDS} s per phase (latencies in ms, p50 / p99; health = GET /api/health every ${HEALTH_EVERY_MS} ms, page = GET ${PAGE_PATH} every ${PAGE_EVERY_MS} ms during that phase)`,
  );
  console.log(
    `${pad("agents", 6)}  ${pad("trivial/s", 9)}  ${pad("read/s", 7)}  ${pad("write/s", 7)}  ${pad("read÷triv", 9)}  ${pad("write÷triv", 10)}` +
      `  ${pad("trivial", 13)}  ${pad("submit read", 13)}  ${pad("submit write", 13)}  ${pad("health p99 triv/read/write/poll", 31)}  ${pad("page p99 triv/read/write/poll", 29)}`,
  );
  for (const { agents, trivial: t, read: r, write: w, decision: d } of results) {
    console.log(
      `${pad(String(agents), 6)}  ${pad(t.perSecond.toFixed(0), 9)}  ${pad(r.perSecond.toFixed(0), 7)}  ${pad(w.perSecond.toFixed(0), 7)}` +
        `  ${pad((r.perSecond / t.perSecond).toFixed(2), 9)}  ${pad((w.perSecond / t.perSecond).toFixed(2), 10)}` +
        `  ${pad(pair(t.latency), 13)}  ${pad(pair(r.latency), 13)}  ${pad(pair(w.latency), 13)}` +
        `  ${pad([t, r, w, d].map((p) => fmt(p.health.p99)).join(" / "), 31)}  ${pad([t, r, w, d].map((p) => fmt(p.page.p99)).join(" / "), 29)}`,
    );
  }
  console.log(`\nDecision long-poll and execute (send_email; a reviewer approves 0–${DECIDE_DELAY_MAX_MS} ms after the agent starts waiting; the server re-reads every 400 ms)`);
  console.log(`${pad("agents", 6)}  ${pad("cycles/s", 8)}  ${pad("decision→agent", 15)}  ${pad("execute", 13)}  ${pad("vote (in-process)", 17)}`);
  for (const { agents, decision: d } of results) {
    console.log(`${pad(String(agents), 6)}  ${pad(d.cyclesPerSecond.toFixed(0), 8)}  ${pad(pair(d.decisionToAgent), 15)}  ${pad(pair(d.execute), 13)}  ${pad(pair(d.vote), 17)}`);
  }

  if (hostile) {
    const h = hostile.health;
    console.log(
      `\nHostile inputs (${HOSTILE.length} agents, one per input, sending for ${SECONDS} s; phase took ${hostile.seconds.toFixed(1)} s` +
        `${hostile.cappedAt ? `, stopped at its ${hostile.capSeconds} s cap with requests unanswered` : ""})`,
    );
    // A probe still unanswered at the cap counts the time it waited: then these are lower bounds.
    console.log(
      `  health during it: p50 ${fmt(h.p50)} ms, p99 ${fmt(h.p99)} ms, max ${fmt(h.max)} ms over ${h.n} probes` +
        `${h.failed ? ` (${h.failed} not answered 200: ${h.failures}; an unanswered probe counts its wait, so these are lower bounds)` : ""}`,
    );
    const pg = hostile.page;
    console.log(`  page (${PAGE_PATH}) during it: p50 ${fmt(pg.p50)} ms, p99 ${fmt(pg.p99)} ms, max ${fmt(pg.max)} ms over ${pg.n} probes${pg.failed ? ` (${pg.failed} not answered 200: ${pg.failures})` : ""}`);
    console.log(`  ${cpuText(hostile.cpu)}`);
    for (const input of HOSTILE) {
      const mine = hostile.requests.filter((q) => q.input === input.name);
      const answers = new Map<string, number>();
      for (const q of mine) {
        const key = q.status === 0 ? `no answer (${q.code})` : `${q.status} ${q.code ?? ""}`.trim() + (q.message ? ` “${q.message}”` : "");
        answers.set(key, (answers.get(key) ?? 0) + 1);
      }
      const lat = summarize(mine.map((q) => q.ms));
      console.log(`  ${input.name}: ${input.shape}`);
      console.log(
        `    ${mine.length} sent → ${[...answers].map(([k, n]) => `${k} ×${n}`).join(", ") || "none"}; latency p50 ${fmt(lat.p50)} ms, max ${fmt(lat.max)} ms` +
          ` (each: ${mine.map((q) => `${(q.ms / 1000).toFixed(1)} s`).join(", ")})`,
      );
    }
  }

  if (reviewPages.length > 0) {
    console.log(`\nReview pages (one reviewer opening an action's page again as soon as it arrives, ${SECONDS} s each; health = GET /api/health every ${HEALTH_EVERY_MS} ms meanwhile, answered in the turn of the event loop it arrives in)`);
    for (const r of reviewPages) {
      console.log(`  ${r.name}: ${r.shape}; page ${(r.htmlBytes / 1024).toFixed(0)} KB`);
      console.log(
        `    ${r.perSecond.toFixed(1)} pages/s, p50 ${fmt(r.pages.p50)} / p99 ${fmt(r.pages.p99)} ms${r.failures ? `; FAILED: ${r.failures}` : ""}` +
          `; health p50 ${fmt(r.health.p50)} / p99 ${fmt(r.health.p99)} / max ${fmt(r.health.max)} ms${probeFailures(r)}`,
      );
      console.log(`    ${cpuText(r.cpu)}`);
    }
  }

  const at64 = results.find((r) => r.agents === 64);
  const worst = (values: number[]) => (values.length ? Math.max(...values) : Number.NaN);
  const submitP99 = worst(results.flatMap((r) => [r.read.latency.p99, r.write.latency.p99]));
  const health64 = at64 ? worst([at64.trivial, at64.read, at64.write, at64.decision].map((p) => p.health.p99)) : Number.NaN;
  console.log(`\nTargets (issue 13) on this machine:`);
  if (at64) {
    const readRatio = at64.read.perSecond / at64.trivial.perSecond;
    const writeRatio = at64.write.perSecond / at64.trivial.perSecond;
    console.log(`  submit throughput ≥ ${TARGET_RATIO} × trivial route at 64 agents: read ${readRatio.toFixed(2)} → ${mark(readRatio >= TARGET_RATIO)}; write ${writeRatio.toFixed(2)} → ${mark(writeRatio >= TARGET_RATIO)}`);
  }
  if (results.length > 0) console.log(`  submit p99 ≤ ${TARGET_SUBMIT_P99_MS} ms (worst of read and write, every level): ${fmt(submitP99)} ms → ${mark(submitP99 <= TARGET_SUBMIT_P99_MS)}`);
  if (at64) console.log(`  /api/health p99 ≤ ${TARGET_HEALTH_P99_MS} ms during the 64-agent load (worst phase): ${fmt(health64)} ms → ${mark(health64 <= TARGET_HEALTH_P99_MS)}`);
  if (hostile) {
    console.log(`  /api/health p99 ≤ ${TARGET_HEALTH_P99_MS} ms during the hostile phase: ${fmt(hostile.health.p99)} ms → ${mark(hostile.health.p99 <= TARGET_HEALTH_P99_MS)}`);
  }
  const hostilePages = reviewPages.filter((r) => r.name !== REVIEW_PAGES[0].name);
  if (hostilePages.length > 0) {
    // Health is answered in the turn it arrives in: its worst wait is about the longest the event loop was held.
    const worstHealth = Math.max(...hostilePages.map((r) => r.health.max));
    console.log(`  no input holds the event loop > ${TARGET_HOLD_MS} ms (health max while hostile review pages render): ${fmt(worstHealth)} ms → ${mark(worstHealth <= TARGET_HOLD_MS)}`);
  }
  if (flood) {
    // Agents' requests wait in their own lane; a person's page is started ahead of them (lib/server/admission.ts).
    console.log(
      `\nFlood (${FLOOD_CONNECTIONS} connections on /api/v1/openapi.json, each sending again when answered, for ${SECONDS} s): ${flood.perSecond.toFixed(0)} answered 200 per second` +
        `, p50 ${fmt(flood.latency.p50)} / p99 ${fmt(flood.latency.p99)} ms${flood.failures ? `; not 200: ${flood.failures}` : ""}`,
    );
    console.log(`  health during it: p50 ${fmt(flood.health.p50)} / p99 ${fmt(flood.health.p99)} ms; page (${PAGE_PATH}): p50 ${fmt(flood.page.p50)} / p99 ${fmt(flood.page.p99)} ms${probeFailures(flood)}`);
    console.log(`  ${cpuText(flood.cpu)}`);
  }
  console.log(`\nload average at end ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  if (serverDied) console.error(`\n✖ The console exited during the run. Its last lines:\n${serverLog.join("\n")}`);

  if (JSON_FILE) {
    const machine = { cores: os.availableParallelism(), cpu: os.cpus()[0]?.model.trim(), node: process.version, platform: `${os.platform()} ${os.arch()}` };
    writeFileSync(JSON_FILE, JSON.stringify({ at: new Date().toISOString(), machine, secondsPerPhase: SECONDS, poolSize, kinds: kindResults, levels: results, hostile, reviewPages, flood }, null, 2));
    console.log(`raw numbers written to ${JSON_FILE}`);
  }
  return serverDied ? 1 : 0;
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (error) {
  if (error instanceof BundledPostgresError) console.error(`✖ ${error.message}`);
  else {
    console.error(error);
    if (serverLog.length) console.error(`The console's last lines:\n${serverLog.join("\n")}`);
  }
}
await teardown();
process.exit(exitCode);
