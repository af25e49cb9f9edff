/**
 * The app under test for Playwright: a throw-away embedded PostgreSQL, migrations and grants as the
 * owner, the demo tenant, and the built console (scripts/console-server.ts) as the app role, as `npm start`
 * runs it. Writes e2e/.runtime.json so tests can seed their own data (and tamper as the owner).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";
import { createDb, embeddedPoolSize } from "@/lib/db/client";
import { BundledPostgresError, preferredPortFor, startEmbeddedPostgres } from "@/lib/db/embedded-postgres";
import { migrateDatabase } from "@/lib/db/migrate";
import { seedDemoTenant } from "@/lib/demo/seed";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import { E2E_PORT, RUNTIME_FILE } from "@/e2e/support/config";
import { processEnv } from "@/lib/env";
import { consoleServerCommand } from "@/lib/server/console-command";

const root = process.cwd();
const dir = mkdtempSync(path.join(os.tmpdir(), "countersign-e2e-"));
// 57000–57999 by the checkout's path: two checkouts' servers starting at once ask for different ports.
const cluster = await startEmbeddedPostgres({ dataDir: dir, port: 3_000 + preferredPortFor(root), ephemeral: true }).catch((error: unknown) => {
  rmSync(dir, { recursive: true, force: true });
  if (!(error instanceof BundledPostgresError)) throw error;
  // An expected reason (see lib/db/embedded-postgres.ts): its one line, not a stack trace.
  console.error(`✖ ${error.message}`);
  process.exit(1);
});
const stateFile = path.join(mkdtempSync(path.join(os.tmpdir(), "countersign-e2e-state-")), "audit-state.jsonl");
const admin = new Client({ connectionString: cluster.url() });
await admin.connect();
await admin.query("CREATE DATABASE countersign");
await admin.end();
const ownerDatabaseUrl = cluster.url("countersign");
const databaseUrl = cluster.appUrl("countersign");
await migrateDatabase(ownerDatabaseUrl, { appRole: cluster.appRole }, root);
const db = createDb(databaseUrl, { max: 2 });
await seedDemoTenant(db, DEFAULT_POLICY);
await db.$disconnect();
writeFileSync(RUNTIME_FILE, JSON.stringify({ databaseUrl, ownerDatabaseUrl, baseURL: `http://127.0.0.1:${E2E_PORT}` }));

const server = consoleServerCommand({ root, port: E2E_PORT, hostname: "127.0.0.1" });
const next = spawn(server.command, server.args, {
  cwd: root,
  stdio: "inherit",
  env: {
    ...processEnv(),
    DATABASE_URL: databaseUrl,
    NEXTAUTH_URL: `http://127.0.0.1:${E2E_PORT}`,
    // Passkeys need a host name (an IP address cannot be a WebAuthn RP id): e2e/review/passkey.spec.ts uses this one.
    COUNTERSIGN_PUBLIC_ORIGINS: `http://localhost:${E2E_PORT}`,
    NEXTAUTH_SECRET: "e2e-secret-not-for-production-use-0123456789",
    COUNTERSIGN_IN_PROCESS_WORKER: "1",
    COUNTERSIGN_WORKER_POLL_MS: "200",
    // What the console remembers beside its key (lib/audit/audit-state-file.ts): this run's own.
    AUDIT_STATE_FILE: stateFile,
    // Checkpoints at every sweep (5 s), so tests see them without waiting half a minute.
    AUDIT_CHECKPOINT_INTERVAL_S: "1",
    // As `npm start` runs it with the bundled PostgreSQL (scripts/start.ts).
    DATABASE_POOL_SIZE: String(embeddedPoolSize()),
  },
});

const stop = async () => {
  next.kill("SIGTERM");
  await cluster.stop().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
  rmSync(path.dirname(stateFile), { recursive: true, force: true });
  rmSync(RUNTIME_FILE, { force: true });
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
next.on("exit", () => void stop());
