import { getDb } from "@/lib/db/client";
import { urgently } from "@/lib/scheduling/urgency";
import { pingDatabase } from "@/lib/db/statements/system/ping-database";
import { sandboxStatus, type SandboxStatus } from "@/lib/sandbox/status";
import { createDatabaseHealthMonitor, type DatabaseHealth, type DatabaseHealthMonitor } from "@/lib/server/database-health";

export type HealthReport = { status: "ok" | "degraded" | "down"; database: DatabaseHealth; sandbox: SandboxStatus };

// One monitor per process (Next.js may bundle this module more than once). Its ping runs ahead of
// queued proposals and votes for a connection, so it measures the database, not the app's queue.
const holder = globalThis as typeof globalThis & { countersignDatabaseHealth?: DatabaseHealthMonitor };
const databaseHealth = () => (holder.countersignDatabaseHealth ??= createDatabaseHealthMonitor(() => urgently(() => pingDatabase(getDb()))));

/**
 * Liveness for operators and load balancers: database reachability (database-health.ts) and the
 * sandbox in use (cached), with no I/O of its own; 503 when the database is down. Answered by
 * console-server.ts ahead of Next.js, and by app/api/health/route.ts under `next dev`.
 */
export async function healthReport(): Promise<{ httpStatus: 200 | 503; report: HealthReport }> {
  const database = await databaseHealth().read();
  const sandbox = await sandboxStatus();
  const status = database.ok ? (sandbox.available ? "ok" : "degraded") : "down";
  return { httpStatus: database.ok ? 200 : 503, report: { status, database, sandbox } };
}
