/**
 * `npm run worker`: one more task worker against DATABASE_URL. Run as many as you like, on any
 * number of machines: tasks and executions are claimed with leases in the database.
 */
import { configuredModel } from "@/lib/agent/providers";
import { createDb } from "@/lib/db/client";
import { ownerConnectionWarning } from "@/lib/db/owner-connection-warning";
import { auditKeyProblem } from "@/lib/audit/audit-keys";
import { sweepSandboxContainers } from "@/lib/sandbox/docker-runner";
import { startSandboxPool, stopSandboxPool } from "@/lib/sandbox/pool-lifecycle";
import { newWorkerId, runWorker } from "@/lib/tasks/task-worker";
import { runNotificationWorkers } from "@/lib/channels/run-notification-workers";
import { environmentProblems, readEnv } from "@/lib/env";

const problems = environmentProblems();
if (problems.length > 0) {
  for (const line of problems) console.error(`✖ ${line}`);
  process.exit(1);
}
const url = readEnv("DATABASE_URL");
if (!url) {
  console.error("✖ DATABASE_URL is not set. Point it at the console's database (npm start prints it).");
  process.exit(1);
}
const db = createDb(url);
// Advisory: a database that cannot be reached is the worker loop's to report and retry.
const warning = await ownerConnectionWarning(db).catch(() => null);
if (warning) console.warn(`⚠ ${warning}`);
const keyProblem = await auditKeyProblem(db).catch(() => null);
if (keyProblem) {
  console.error(`✖ ${keyProblem}`);
  process.exit(1);
}
// Sandbox containers whose supervising process is gone (a crash mid-run) are removed at start-up.
void sweepSandboxContainers().catch(() => 0);
startSandboxPool(); // when SANDBOX_POOL_SIZE > 0: Docker runs take a warm container
const model = configuredModel();
const workerId = newWorkerId();
const controller = new AbortController();
process.on("SIGINT", () => controller.abort());
process.on("SIGTERM", () => controller.abort());
console.log(`${workerId} running with the ${model.id === "offline" ? "offline planner" : `providers ${model.id}`}`);
await Promise.all([
  runWorker({ db, model: () => model, workerId, signal: controller.signal, log: (line) => console.log(line) }),
  runNotificationWorkers({ db, signal: controller.signal }),
]);
await stopSandboxPool().catch(() => {});
await db.$disconnect();
