import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";
import { BundledPostgresError, startEmbeddedPostgres, type EmbeddedCluster } from "@/lib/db/embedded-postgres";
import { migrateDatabase } from "@/lib/db/migrate";
import { readEnv } from "@/lib/env";

/**
 * One real PostgreSQL cluster per test run. Migrations are applied once to a template database;
 * each test file clones it (tests/db.ts), so files run in parallel without sharing rows.
 */
let cluster: EmbeddedCluster | undefined;
let dir: string | undefined;

export default async function setup() {
  // The audit log's key (lib/audit/audit-keys.ts): one per run, shared by every test file's events.
  process.env.AUDIT_SIGNING_KEY ??= randomBytes(32).toString("base64");
  const external = readEnv("TEST_DATABASE_URL");
  if (external) {
    // A real external server: use it as the template host.
    await prepareTemplate(external);
    process.env.COUNTERSIGN_TEST_PG = external;
    return;
  }
  dir = mkdtempSync(path.join(os.tmpdir(), "countersign-test-pg-"));
  try {
    cluster = await startEmbeddedPostgres({ dataDir: dir, port: 56_000, ephemeral: true });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    if (!(error instanceof BundledPostgresError)) throw error;
    // An expected reason (see lib/db/embedded-postgres.ts): its one line, not a stack trace.
    console.error(`\n✖ ${error.message}\n`);
    process.exit(1);
  }
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
