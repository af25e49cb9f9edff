/**
 * Next.js calls register() once per server process. Every request gets its socket's peer address
 * stamped on it (sign-in throttling counts clients by it); a malformed COUNTERSIGN_TRUSTED_PROXIES
 * fails this hook, naming the entry, rather than letting forwarded addresses be misread. With
 * COUNTERSIGN_IN_PROCESS_WORKER=1 (set by `npm start`) the server also runs one task worker;
 * `npm run worker` runs more, anywhere. The compute pool's threads start here too, so the first
 * proposal does not wait for them to load the parser. The health report is offered to the console's
 * own server, which answers /api/health before Next.js routes anything. Stored MCP servers and
 * webhook endpoints whose hosts are refused now are named in the log.
 */
export async function register() {
  // NEXT_RUNTIME is Next.js's own (set per bundle at build time), not configuration.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { readEnv } = await import("@/lib/env");
  const { stampPeerAddresses } = await import("@/lib/server/stamp-peer-address");
  readEnv("COUNTERSIGN_TRUSTED_PROXIES");
  stampPeerAddresses();
  // The console's server answers /api/health ahead of Next.js's routing (lib/server/console-server.ts).
  const { offerHealthAnswer } = await import("@/lib/server/health-hook");
  const { healthReport } = await import("@/lib/server/health");
  offerHealthAnswer(healthReport);
  const { warmComputePool } = await import("@/lib/compute/compute-pool");
  const { judgePayloadTask } = await import("@/lib/approvals/compute");
  const { revealTextsTask } = await import("@/lib/review/compute");
  warmComputePool([judgePayloadTask, revealTextsTask]);
  // Stored MCP servers and webhooks the destination rules refuse now (an upgrade), said at start.
  const { getDb } = await import("@/lib/db/client");
  const { warnRefusedDestinations } = await import("@/lib/server/warn-refused-destinations");
  warnRefusedDestinations(getDb());
  if (readEnv("COUNTERSIGN_IN_PROCESS_WORKER") !== "1") return;
  const { startInProcessWorker } = await import("@/lib/tasks/in-process-worker");
  startInProcessWorker();
}
