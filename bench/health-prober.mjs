// bench:api's prober, on a thread of its own: GET `path` (/api/health, or a page) every `everyMs`
// on its own connections, whether or not earlier probes have been answered (a stalled server shows
// as many slow probes, not as one). On its own event loop so that it times the console, as a load
// balancer would, and not the benchmark's agents, which share the main thread's loop with it.
// On its one message, { waitMs } (null: no limit): waits for the outstanding probes, or aborts them after waitMs (their time
// so far is counted), and posts back [{ status, ms, code }].
import http from "node:http";
import { parentPort, workerData } from "node:worker_threads";

const { port, path, everyMs, timeoutMs } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1024, maxFreeSockets: 1024 });
const stopped = new AbortController();
const probes = [];

function probe() {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([timeout, stopped.signal]);
  const started = performance.now();
  return new Promise((resolve) => {
    const finish = (status, code) => resolve({ status, ms: performance.now() - started, code });
    const req = http.request({ host: "127.0.0.1", port, method: "GET", path, agent, signal }, (res) => {
      res.resume();
      res.on("end", () => finish(res.statusCode ?? 0, null));
      res.on("error", (error) => finish(0, error.code ?? error.name));
    });
    req.on("error", (error) => finish(0, timeout.aborted ? "timeout" : stopped.signal.aborted ? "aborted" : (error.code ?? error.name)));
    req.end();
  });
}

const timer = setInterval(() => probes.push(probe()), everyMs);
parentPort.once("message", async ({ waitMs }) => {
  clearInterval(timer);
  const abortAt = waitMs === null ? null : setTimeout(() => stopped.abort(), waitMs);
  const done = await Promise.all(probes);
  if (abortAt) clearTimeout(abortAt);
  agent.destroy();
  parentPort.postMessage(done);
});
