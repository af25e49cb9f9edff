/**
 * A second console process for race tests: fires `count` concurrent executions of one approval
 * at the shared database as soon as it is told to go (a line on stdin), then prints how they
 * ended as one JSON line. It has its own pool and remembers nothing of the proposal.
 */
import { createInterface } from "node:readline";
import { createDb } from "@/lib/db/client";
import { executeAction } from "@/lib/approvals/execute-action";

const [url, tenantId, actionId, payloadHash, count] = process.argv.slice(2);
const db = createDb(url, { max: 10 });
// Warm the pool so every process starts racing at the same moment.
await Promise.all(Array.from({ length: 10 }, () => db.$queryRaw`SELECT 1`));
console.log("ready");
await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once("line", () => resolve()));
const outcomes = await Promise.allSettled(
  Array.from({ length: Number(count) }, () => executeAction(db, { tenantId, actionId, payloadHash, executor: { type: "requester" }, actor: { type: "system", label: `racer ${process.pid}` } })),
);
console.log(JSON.stringify(outcomes.map((o) => (o.status === "fulfilled" ? o.value.state : String((o.reason as { code?: string }).code)))));
await db.$disconnect();
process.exit(0);
