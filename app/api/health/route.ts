import { getDb } from "@/lib/db/client";
import { urgently } from "@/lib/db/sql";
import { pingDatabase } from "@/lib/db/statements/ping-database";
import { sandboxStatus } from "@/lib/sandbox/status";

export const dynamic = "force-dynamic";

// Probes arriving while one is on its way share its answer, so a load balancer polling hard adds
// one round trip at a time, not one per probe.
let inFlight: Promise<void> | null = null;

function ping(): Promise<void> {
  // Ahead of queued proposals and votes for a connection (a probe takes one for a `SELECT 1`), so
  // under load the answer says whether the database answers, not how long the app's queue is.
  inFlight ??= urgently(() => pingDatabase(getDb())).finally(() => (inFlight = null));
  return inFlight;
}

/** Liveness for operators and load balancers: database reachability and the sandbox in use. */
export async function GET() {
  const started = performance.now();
  let database: { ok: boolean; latencyMs?: number; error?: string };
  try {
    await ping();
    database = { ok: true, latencyMs: Math.round(performance.now() - started) };
  } catch {
    database = { ok: false, error: "The database did not answer." };
  }
  const sandbox = await sandboxStatus();
  const status = database.ok ? (sandbox.available ? "ok" : "degraded") : "down";
  return Response.json({ status, database, sandbox }, { status: database.ok ? 200 : 503 });
}
