// Sandbox latency: time to first output byte and to completion for a trivial snippet, per
// runner, next to `python3 -c` on the host measured in the same run. "pooled" Docker takes a
// container from a warm pool that is full before each run (the steady state of an approval
// console, where runs are seconds apart); "cold" creates and starts one per run. Docker runs end on
// the in-container wrapper's end line; the "ends on exit" row is the path before it (the run ends
// when the daemon reports the container's exit), measured in the same run for comparison. The
// runners take turns sample by sample, so a change in the machine's load hits every row alike.
//   npx tsx bench/sandbox.ts [runs=20]
import { spawn } from "node:child_process";
import os from "node:os";
import { bwrapImage, probeBwrap, runInBwrap } from "../lib/sandbox/bwrap-runner";
import { ContainerPool } from "../lib/sandbox/container-pool";
import { settleSandboxRemovals } from "../lib/sandbox/docker-container";
import { dockerClient, resolveSandboxImageId, runInDocker } from "../lib/sandbox/docker-runner";
import { dockerHasGvisor } from "../lib/sandbox/gvisor";
import { memoryEnforcement } from "../lib/sandbox/memory-cgroup";
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

type Row = { name: string; once: () => Promise<Sample>; before: () => Promise<void>; samples: Sample[] };

function row(name: string, once: () => Promise<Sample>, before: () => Promise<void> = async () => {}): Row {
  return { name, once, before, samples: [] };
}

/**
 * One warm-up each, then RUNS rounds in which every row takes one sample. Untimed before each
 * sample: the row's `before` and the removal of every container so far (a cold gVisor container's
 * teardown must not land on the next row's sample).
 */
async function measureInTurns(rows: Row[]): Promise<void> {
  for (let round = -1; round < RUNS; round++) {
    for (const r of rows) {
      await r.before();
      await settleSandboxRemovals();
      const sample = await r.once();
      if (round >= 0) r.samples.push(sample);
    }
  }
}

async function main(): Promise<void> {
  const limits = defaultLimits();
  const rows: Row[] = [];
  const python = "/usr/bin/python3";
  const pools: ContainerPool[] = [];

  rows.push(row(`host python3 -c (${python})`, () => hostPython(python)));

  let dockerSpec: SandboxSpec | null = null;
  try {
    await dockerClient().ping();
    dockerSpec = buildSpec("container", await resolveSandboxImageId(), limits);
  } catch (err) {
    console.log(`docker: skipped (${err instanceof Error ? err.message : String(err)})`);
  }
  /** Before each pooled sample the pool is full and earlier runs' containers are removed, so neither refill nor removal runs during the measurement. */
  const pooledRows = (label: string, spec: SandboxSpec, withOldPath: boolean) => {
    const pool = new ContainerPool({ size: 2 });
    pools.push(pool);
    const settled = async () => {
      await pool.whenFull(spec);
      await settleSandboxRemovals();
    };
    rows.push(row(`${label}, pooled`, () => sandboxed(() => runInDocker(spec, SNIPPET, { pool })), settled));
    if (withOldPath) rows.push(row(`${label}, pooled, ends on exit (old)`, () => sandboxed(() => runInDocker(spec, SNIPPET, { pool, completion: "container-exit" })), settled));
    rows.push(row(`${label}, cold`, () => sandboxed(() => runInDocker(spec, SNIPPET, { pool: null })), settleSandboxRemovals));
  };
  if (dockerSpec) pooledRows("docker", dockerSpec, true);

  // gVisor: same image and limits under runsc, pooled (booted ahead of need) and cold.
  if (dockerSpec && (await dockerHasGvisor(dockerClient()).catch(() => false))) pooledRows("gvisor", { ...dockerSpec, isolation: "gvisor" }, false);
  else if (dockerSpec) console.log("gvisor: skipped (runsc is not registered with Docker; scripts/ensure-system.sh as root)");

  // bubblewrap on the sandbox image's rootfs (target: ≤ 1.5× host python).
  const bwrapSpec = buildSpec("namespace", await bwrapImage(), limits);
  const probe = await probeBwrap(bwrapSpec);
  console.log(`bwrap memory limit: ${memoryEnforcement().description}`);
  if (probe.ok) {
    rows.push(row("bwrap runner (image rootfs)", () => sandboxed(() => runInBwrap(bwrapSpec, SNIPPET))));
    rows.push(row("bwrap, limits via prlimit (old)", () => sandboxed(() => runInBwrap(bwrapSpec, SNIPPET, { limitsVia: "prlimit" }))));
  }
  else console.log(`bwrap: skipped (${probe.reason})`);

  const loadBefore = os.loadavg();
  await measureInTurns(rows);
  const loadAfter = os.loadavg();
  for (const pool of pools) await pool.drain();
  await settleSandboxRemovals();

  const host = rows[0].samples;
  const hostFirst50 = percentile(host.map((s) => s.firstMs), 50);
  const hostTotal50 = percentile(host.map((s) => s.totalMs), 50);
  const fmt = (n: number) => n.toFixed(1).padStart(7);
  console.log(`\n${RUNS} runs each of ${JSON.stringify(SNIPPET)} (after one warm-up run), runners in turns`);
  console.log(`load average (1/5/15 min) before: ${loadBefore.map((l) => l.toFixed(2)).join(" ")}, after: ${loadAfter.map((l) => l.toFixed(2)).join(" ")}; ${os.cpus().length} cores\n`);
  console.log(`${"".padEnd(40)} first output (ms)          completion (ms)`);
  console.log(`${"runner".padEnd(40)}    p50     p95  ×host    p50     p95  ×host`);
  for (const { name, samples } of rows) {
    const first = samples.map((s) => s.firstMs);
    const total = samples.map((s) => s.totalMs);
    const f50 = percentile(first, 50);
    const t50 = percentile(total, 50);
    console.log(
      `${name.padEnd(40)}${fmt(f50)} ${fmt(percentile(first, 95))} ${(f50 / hostFirst50).toFixed(1).padStart(5)}x` +
        `${fmt(t50)} ${fmt(percentile(total, 95))} ${(t50 / hostTotal50).toFixed(1).padStart(5)}x`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
