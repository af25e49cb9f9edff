import { getDb } from "@/lib/db/client";
import { pingDatabase } from "@/lib/db/statements/ping-database";
import { sandboxStatus } from "@/lib/sandbox/status";

export const dynamic = "force-dynamic";

/** Liveness for operators and load balancers: database reachability and the sandbox in use. */
export async function GET() {
  const started = performance.now();
  let database: { ok: boolean; latencyMs?: number; error?: string };
  try {
    await pingDatabase(getDb());
    database = { ok: true, latencyMs: Math.round(performance.now() - started) };
  } catch {
    database = { ok: false, error: "The database did not answer." };
  }
  const sandbox = await sandboxStatus();
  const status = database.ok ? (sandbox.available ? "ok" : "degraded") : "down";
  return Response.json({ status, database, sandbox }, { status: database.ok ? 200 : 503 });
}
