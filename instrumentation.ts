/**
 * Next.js calls register() once per server process. With COUNTERSIGN_IN_PROCESS_WORKER=1 (set by
 * `npm start`) the server also runs one task worker; `npm run worker` runs more, anywhere.
 */
export async function register() {
  // NEXT_RUNTIME is Next.js's own (set per bundle at build time), not configuration.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { readEnv } = await import("@/lib/env");
  if (readEnv("COUNTERSIGN_IN_PROCESS_WORKER") !== "1") return;
  const { startInProcessWorker } = await import("@/lib/tasks/in-process-worker");
  startInProcessWorker();
}
