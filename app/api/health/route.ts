import { getDb } from "@/lib/db/client";
import { urgently } from "@/lib/db/sql";
import { pingDatabase } from "@/lib/db/statements/ping-database";
import { sandboxStatus } from "@/lib/sandbox/status";
import { createDatabaseHealthMonitor, type DatabaseHealthMonitor } from "@/lib/server/database-health";

export const dynamic = "force-dynamic";

// One monitor per process (Next.js may bundle this module more than once). Its ping runs ahead of
// queued proposals and votes for a connection, so it measures the database, not the app's queue.
const holder = globalThis as typeof globalThis & { countersignDatabaseHealth?: DatabaseHealthMonitor };
const databaseHealth = () => (holder.countersignDatabaseHealth ??= createDatabaseHealthMonitor(() => urgently(() => pingDatabase(getDb()))));

/**
 * Liveness for operators and load balancers: database reachability (from a ping every second,
 * never older than 5 s; see lib/server/database-health.ts) and the sandbox in use. A probe does no
 * I/O of its own, so a load balancer polling hard costs the database nothing and the answer comes
 * in one turn of the event loop however busy the app's connections are.
 */
export async function GET() {
  const database = await databaseHealth().read();
  const sandbox = await sandboxStatus();
  const status = database.ok ? (sandbox.available ? "ok" : "degraded") : "down";
  return Response.json({ status, database, sandbox }, { status: database.ok ? 200 : 503 });
}
