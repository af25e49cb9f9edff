// Sandbox latency: time to first output byte and to completion for a trivial snippet, per
// runner, next to `python3 -c` on the host measured in the same run. "pooled" Docker takes a
// container from a warm pool that is full before each run (the steady state of an approval
// console, where runs are seconds apart); "cold" creates and starts one per run.
//   npx tsx bench/sandbox.ts [runs=20]
import { spawn } from "node:child_process";
import { bwrapImage, probeBwrap, runInBwrap } from "../lib/sandbox/bwrap-runner";
import { ContainerPool } from "../lib/sandbox/container-pool";
import { settleSandboxRemovals } from "../lib/sandbox/docker-container";
import { dockerClient, resolveSandboxImageId, runInDocker } from "../lib/sandbox/docker-runner";
import { buildSpec, defaultLimits, type SandboxSpec } from "../lib/sandbox/spec";
import type { SandboxRunResult } from "../lib/sandbox/types";

const RUNS = Number(process.argv[2] ?? 20);
const SNIPPET = "print('hello')\n";

type Sample = { firstMs: number; totalMs: number };

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

/** Host baseline: the same python, no isolation. */
function hostPython(python: string): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstMs = -1;
    const child = spawn(python, ["-c", SNIPPET], { stdio: ["ignore", "pipe", "inherit"] });
    child.stdout.on("data", () => {
      if (firstMs < 0) firstMs = performance.now() - started;
    });
    child.on("error", reject);
    child.on("close", () => resolve({ firstMs, totalMs: performance.now() - started }));
  });
}

/** End to end as a caller sees it: includes queueing, container removal, everything. */
async function sandboxed(run: () => Promise<SandboxRunResult>): Promise<Sample> {
  const started = performance.now();
  const result = await run();
  const totalMs = performance.now() - started;
  if (result.exitCode !== 0 || result.stdout !== "hello\n") throw new Error(`bad run: ${JSON.stringify(result)}`);
  return { firstMs: result.firstOutputMs ?? -1, totalMs };
}

/** `before` runs ahead of each sample, untimed (e.g. waiting for the pool to be full again). */
async function measure(name: string, once: () => Promise<Sample>, before: () => Promise<void> = async () => {}): Promise<{ name: string; samples: Sample[] }> {
  await before();
  await once(); // warm-up (parser/image caches, first connection)
  const samples: Sample[] = [];
  for (let i = 0; i < RUNS; i++) {
    await before();
    samples.push(await once());
  }
  return { name, samples };
}

async function main(): Promise<void> {
  const limits = defaultLimits();
  const rows: { name: string; samples: Sample[] }[] = [];
  const python = "/usr/bin/python3";

  rows.push(await measure(`host python3 -c (${python})`, () => hostPython(python)));

  let dockerSpec: SandboxSpec | null = null;
  try {
    await dockerClient().ping();
    dockerSpec = buildSpec("container", await resolveSandboxImageId(), limits);
  } catch (err) {
    console.log(`docker: skipped (${err instanceof Error ? err.message : String(err)})`);
  }
  if (dockerSpec) {
    const spec = dockerSpec;
    const pool = new ContainerPool({ size: 2 });
    // Before each pooled sample: the pool is full and the last run's container is removed, so
    // neither the refill nor the removal runs during the measurement.
    const settled = async () => {
      await pool.whenFull(spec);
      await settleSandboxRemovals();
    };
    rows.push(await measure("docker, pooled", () => sandboxed(() => runInDocker(spec, SNIPPET, { pool })), settled));
    await pool.drain();
    rows.push(await measure("docker, cold", () => sandboxed(() => runInDocker(spec, SNIPPET, { pool: null })), settleSandboxRemovals));
  }

  const bwrapSpec = buildSpec("namespace", bwrapImage(), limits);
  const probe = await probeBwrap(bwrapSpec);
  if (probe.ok) rows.push(await measure("bwrap runner", () => sandboxed(() => runInBwrap(bwrapSpec, SNIPPET))));
  else console.log(`bwrap: skipped (${probe.reason})`);

  const host = rows[0].samples;
  const hostFirst50 = percentile(host.map((s) => s.firstMs), 50);
  const hostTotal50 = percentile(host.map((s) => s.totalMs), 50);
  const fmt = (n: number) => n.toFixed(1).padStart(7);
  console.log(`\n${RUNS} runs each of ${JSON.stringify(SNIPPET)} (after one warm-up run)\n`);
  console.log(`${"".padEnd(34)} first output (ms)          completion (ms)`);
  console.log(`${"runner".padEnd(34)}    p50     p95  ×host    p50     p95  ×host`);
  for (const { name, samples } of rows) {
    const first = samples.map((s) => s.firstMs);
    const total = samples.map((s) => s.totalMs);
    const f50 = percentile(first, 50);
    const t50 = percentile(total, 50);
    console.log(
      `${name.padEnd(34)}${fmt(f50)} ${fmt(percentile(first, 95))} ${(f50 / hostFirst50).toFixed(1).padStart(5)}x` +
        `${fmt(t50)} ${fmt(percentile(total, 95))} ${(t50 / hostTotal50).toFixed(1).padStart(5)}x`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
