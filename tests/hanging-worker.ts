/**
 * A worker process whose model (a provider at the given base URL) hangs, so the test can SIGKILL it
 * mid-step and check that another worker finishes the run exactly once.
 */
import { createProviderModel, makeProvider } from "@/lib/agent/providers";
import { createDb } from "@/lib/db/client";
import { runWorker } from "@/lib/tasks/task-worker";

const [url, baseURL] = process.argv.slice(2);
const db = createDb(url, { max: 2 });
const model = createProviderModel([makeProvider({ name: "hanging", baseURL, model: "m", apiKey: "sk-test-hanging" })], { timeoutMs: 600_000, maxRetries: 0 });
await runWorker({ db, model: () => model, workerId: "doomed-worker", pollMs: 50 });
