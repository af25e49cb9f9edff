import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";
import { ensureAppLoginRole, urlAsRole } from "@/lib/db/app-role";
import { BundledPostgresError, startEmbeddedPostgres, type EmbeddedCluster } from "@/lib/db/embedded-postgres";
import { migrateDatabase } from "@/lib/db/migrate";
import { readEnv } from "@/lib/env";

/**
 * One real PostgreSQL cluster per test run. Migrations and the app role's grants are applied once,
 * as the owner, to a template database; each test file clones it (tests/db.ts), so files run in
 * parallel without sharing rows, and connects as the app role, as the console does.
 */
const EXTERNAL_APP_ROLE = "countersign_test_app";
let cluster: EmbeddedCluster | undefined;
let dir: string | undefined;

export default async function setup() {
  // The audit log's key (lib/audit/audit-keys.ts): one per run, shared by every test file's events.
  process.env.AUDIT_SIGNING_KEY ??= randomBytes(32).toString("base64");
  // What the console remembers beside its key (lib/audit/audit-state-file.ts): one file per run.
  process.env.AUDIT_STATE_FILE ??= path.join(mkdtempSync(path.join(os.tmpdir(), "countersign-audit-state-")), "audit-state.jsonl");
  const external = readEnv("TEST_DATABASE_URL");
  if (external) {
    // A real external server (as a role that may create roles and databases): the template host.
    const password = randomBytes(18).toString("base64url");
    const admin = new Client({ connectionString: external });
    await admin.connect();
    await ensureAppLoginRole(admin, EXTERNAL_APP_ROLE, password);
    await admin.end();
    await prepareTemplate(external, EXTERNAL_APP_ROLE);
    process.env.COUNTERSIGN_TEST_PG = external;
    process.env.COUNTERSIGN_TEST_PG_APP = urlAsRole(external, EXTERNAL_APP_ROLE, password);
    return;
  }
  dir = mkdtempSync(path.join(os.tmpdir(), "countersign-test-pg-"));
  try {
    // A random start for the free-port search: test runs started at once (several worktrees on
    // one machine) would otherwise all find the same free port and all but one fail to bind it.
    cluster = await startEmbeddedPostgres({ dataDir: dir, port: 56_000 + Math.floor(Math.random() * 800), ephemeral: true });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    if (!(error instanceof BundledPostgresError)) throw error;
    // An expected reason (see lib/db/embedded-postgres.ts): its one line, not a stack trace.
    console.error(`\n✖ ${error.message}\n`);
    process.exit(1);
  }
  await prepareTemplate(cluster.url(), cluster.appRole);
  process.env.COUNTERSIGN_TEST_PG = cluster.url();
  process.env.COUNTERSIGN_TEST_PG_APP = cluster.appUrl();
  return async () => {
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
}

async function prepareTemplate(adminUrl: string, appRole: string) {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query("DROP DATABASE IF EXISTS countersign_template");
  await admin.query("CREATE DATABASE countersign_template");
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = "/countersign_template";
  await migrateDatabase(url.toString(), { appRole });
}
