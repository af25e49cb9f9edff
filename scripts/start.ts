/**
 * `npm start`: brings the console up. With no DATABASE_URL it starts the bundled PostgreSQL (kept
 * across restarts, in .data/pg or, as root, under /var/lib/countersign), applies migrations and
 * the app role's grants as the owner, seeds the demo tenant, prepares the best sandbox available,
 * builds the app if needed, starts it as the app role, and prints the URL and demo sign-ins.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "pg";
import { roleOfUrl } from "@/lib/db/app-role";
import { createDb, embeddedPoolSize } from "@/lib/db/client";
import { findFreePort, startEmbeddedPostgres, type EmbeddedCluster } from "@/lib/db/embedded-postgres";
import { migrateDatabase } from "@/lib/db/migrate";
import { auditKeyProblem } from "@/lib/audit/audit-keys";
import { OWNER_CONNECTION_WARNING } from "@/lib/db/owner-connection-warning";
import { DEMO_PASSWORD, DEMO_USERS, seedDemoTenant } from "@/lib/demo/seed";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import { prepareSandbox } from "@/scripts/prepare-sandbox";
import { environmentProblems, processEnv, readEnv } from "@/lib/env";
import { consoleServerCommand } from "@/lib/server/console-command";

const root = process.cwd();
const dataDir = path.join(root, ".data");
const dev = process.argv.includes("--dev");
const rebuild = process.argv.includes("--rebuild");

const step = (message: string) => console.log(`\x1b[1m›\x1b[0m ${message}`);

async function ensureDatabase(adminUrl: string, name: string) {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
  if (!rowCount) await client.query(`CREATE DATABASE ${name}`);
  await client.end();
}

function persistentSecret(file: string): string {
  const p = path.join(dataDir, file);
  if (existsSync(p)) return readFileSync(p, "utf8").trim();
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(p, secret, { mode: 0o600 });
  return secret;
}

function newestSourceMtime(dirs: string[]): number {
  let newest = 0;
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === "generated" || entry.name.startsWith(".")) continue;
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  dirs.forEach((d) => walk(path.join(root, d)));
  return newest;
}

function buildIsStale(): boolean {
  const buildId = path.join(root, ".next", "BUILD_ID");
  if (rebuild || !existsSync(buildId)) return true;
  return newestSourceMtime(["app", "components", "lib", "prisma"]) > statSync(buildId).mtimeMs;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv) {
  const result = spawnSync(command, args, { cwd: root, env, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status})`);
}

async function waitForHealth(url: string, child: ChildProcess): Promise<unknown> {
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) throw new Error("The web server exited during start-up (see above).");
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.ok) return await res.json();
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("The web server did not answer /api/health within 2 minutes.");
}

async function main() {
  const problems = environmentProblems();
  if (problems.length > 0) {
    for (const line of problems) console.error(`✖ ${line}`);
    process.exit(1);
  }
  mkdirSync(dataDir, { recursive: true });
  let cluster: EmbeddedCluster | undefined;
  // The console connects with databaseUrl (the app role); migrations and grants use ownerUrl.
  let databaseUrl = readEnv("DATABASE_URL");
  let ownerUrl = readEnv("DATABASE_OWNER_URL");
  let appRole: string | null;
  if (databaseUrl) {
    step("Using the PostgreSQL server in DATABASE_URL (nothing bundled is started)");
    appRole = ownerUrl ? roleOfUrl(databaseUrl) : null;
    if (ownerUrl && !appRole) throw new Error("DATABASE_URL names no user: put the app role in it (postgresql://countersign_app:…@host/db).");
    if (!ownerUrl) {
      console.warn(`\x1b[33m⚠\x1b[0m ${OWNER_CONNECTION_WARNING}`);
      ownerUrl = databaseUrl;
    }
  } else {
    if (ownerUrl) throw new Error("DATABASE_OWNER_URL is set without DATABASE_URL: set DATABASE_URL to the app role on the same server, or unset DATABASE_OWNER_URL to use the bundled PostgreSQL.");
    step("Starting the bundled PostgreSQL");
    cluster = await startEmbeddedPostgres({ dataDir, notice: (line) => console.log(`  ${line}`) });
    console.log(`  Data in ${cluster.pgDir}`);
    await ensureDatabase(cluster.url(), "countersign");
    ownerUrl = cluster.url("countersign");
    databaseUrl = cluster.appUrl("countersign");
    appRole = cluster.appRole;
  }

  step(appRole ? `Applying migrations, and the app role ${appRole}'s rights` : "Applying migrations");
  await migrateDatabase(ownerUrl, { appRole }, root);

  {
    // The audit log's key must be the one that signed it so far (lib/audit/audit-keys.ts).
    const db = createDb(databaseUrl, { max: 1 });
    const problem = await auditKeyProblem(db);
    await db.$disconnect();
    if (problem) throw new Error(problem);
  }

  const seed = Boolean(cluster) || readEnv("COUNTERSIGN_SEED_DEMO") === "1";
  if (seed) {
    // As the app role: the seed writes through the domain functions the console uses, so it needs
    // no right the console lacks, and a missing grant shows here rather than on first use.
    const db = createDb(databaseUrl, { max: 2 });
    const { created } = await seedDemoTenant(db, DEFAULT_POLICY);
    await db.$disconnect();
    step(created ? "Seeded the demo tenant" : "Demo tenant already present");
  }

  step("Preparing the code sandbox");
  const sandbox = await prepareSandbox({ root, log: (line) => console.log(`  ${line}`) });

  const port = readEnv("PORT") ?? (await findFreePort(3000));
  const url = readEnv("NEXTAUTH_URL") ?? `http://localhost:${port}`;
  // The console gets the app role only: the owner's URL stays with this process (spawn drops undefined).
  const env: NodeJS.ProcessEnv = {
    ...processEnv(),
    DATABASE_OWNER_URL: undefined,
    DATABASE_URL: databaseUrl,
    NEXTAUTH_URL: url,
    NEXTAUTH_SECRET: readEnv("NEXTAUTH_SECRET") ?? persistentSecret("auth-secret"),
    PORT: String(port),
    COUNTERSIGN_IN_PROCESS_WORKER: readEnv("COUNTERSIGN_IN_PROCESS_WORKER") ?? "1",
    // The bundled PostgreSQL shares this machine's cores: a pool sized for them (lib/db/client.ts).
    ...(cluster && readEnv("DATABASE_POOL_SIZE") === undefined ? { DATABASE_POOL_SIZE: String(embeddedPoolSize()) } : {}),
  };

  if (!dev && buildIsStale()) {
    step("Building the console (first run or changed sources; about a minute)");
    run(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], { ...env, NODE_ENV: "production" });
  }

  step(`Starting the console on port ${port}`);
  // The built console runs on its own server (health answered ahead of Next.js); --dev on Next.js's.
  const { command, args } = dev
    ? { command: process.execPath, args: [path.join(root, "node_modules/next/dist/bin/next"), "dev", "-p", String(port)] }
    : consoleServerCommand({ root, port });
  const next = spawn(command, args, {
    cwd: root,
    env,
    stdio: ["ignore", "inherit", "inherit"],
  });

  const shutdown = async (code = 0) => {
    next.kill("SIGTERM");
    await cluster?.stop().catch(() => {});
    process.exit(code);
  };
  process.on("SIGINT", () => void shutdown());
  process.on("SIGTERM", () => void shutdown());
  next.on("exit", (code) => void shutdown(code ?? 1));

  await waitForHealth(url, next);
  const line = "─".repeat(72);
  console.log(`\n${line}\n  Countersign is running at ${url}\n`);
  if (seed) {
    console.log(`  Demo sign-ins (password: ${DEMO_PASSWORD}):`);
    for (const u of DEMO_USERS) console.log(`    ${u.email.padEnd(24)} ${u.roles.join(", ")}`);
  }
  console.log(`\n  Sandbox: ${sandbox.summary}`);
  if (cluster) {
    // The app role's URL is what workers (npm run worker) and psql sessions should use; the
    // owner's password is not printed: it is for migrations and administration only.
    console.log(`  Database (psql, app role; DATABASE_URL for npm run worker): ${cluster.appTcpUrl("countersign")}`);
    console.log(`  Owner, for migrations and administration: ${cluster.ownerRole} on the same server, password in ${cluster.passwordFile}`);
  }
  console.log(`  Planner: ${readEnv("LLM_PROVIDERS") || readEnv("OPENAI_API_KEY") ? "configured LLM providers" : "offline planner (no LLM provider configured)"}`);
  console.log(`${line}\n  Stop with Ctrl-C.\n`);
}

main().catch((error) => {
  console.error(`\n✖ ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
