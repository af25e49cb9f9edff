/**
 * A worker process for race tests: once told to go (a line on stdin), runs the task loop with the
 * offline planner until no task is runnable — executing approved actions of tasks through the
 * same gate — and prints "done".
 */
import { createInterface } from "node:readline";
import { createDb } from "@/lib/db/client";
import { offlinePlanner } from "@/lib/agent/offline-planner";
import { driveUntilIdle } from "@/tests/task-driver";

const [url] = process.argv.slice(2);
const db = createDb(url, { max: 4 });
await db.$queryRaw`SELECT 1`;
console.log("ready");
await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once("line", () => resolve()));
await driveUntilIdle(db, offlinePlanner, `race-worker-${process.pid}`);
console.log("done");
await db.$disconnect();
process.exit(0);
