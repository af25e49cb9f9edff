/**
 * Next.js calls register() once per server process. Every request gets its socket's peer address
 * stamped on it (sign-in throttling counts clients by it). A malformed COUNTERSIGN_TRUSTED_PROXIES
 * fails this hook, so Next.js serves nothing and logs which entry is wrong. With
 * COUNTERSIGN_IN_PROCESS_WORKER=1 (set by `npm start`) the server also runs one task worker;
 * `npm run worker` runs more, anywhere.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { stampPeerAddresses } = await import("@/lib/server/stamp-peer-address");
  const { trustedProxiesFromEnv } = await import("@/lib/auth/client-address");
  trustedProxiesFromEnv();
  stampPeerAddresses();
  if (process.env.COUNTERSIGN_IN_PROCESS_WORKER !== "1") return;
  const { startInProcessWorker } = await import("@/lib/tasks/in-process-worker");
  startInProcessWorker();
}
