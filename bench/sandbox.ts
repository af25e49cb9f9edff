// Sandbox latency, execute→completion: for `print('hi')` and for a small pandas program, per
// runner, next to bare python3 measured in the same run. "pooled" takes a container from a warm
// pool that is full before each run (the steady state of an approval console, where runs are
// seconds apart): its Python already running with numpy and pandas imported (warm-interpreter.ts);
// "cold" creates and starts a container per run. Bare python3 is the image's own interpreter
// (chroot into the bubblewrap rootfs, which is the image's: the host's python3 has no pandas), the
// host's `python3 -c` is shown for `print` too. The runners take turns sample by sample (each row's
// two programs back to back, in alternating order), so a change in the machine's load hits every
// row and both programs alike. Before each sample, untimed: the row's `before` (a
// pooled row waits for its pool to be full and warm) and the removal of every container so far.
//   npx tsx bench/sandbox.ts [runs=20]
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import os from "node:os";
import { bwrapImage, probeBwrap, runInBwrap } from "../lib/sandbox/bwrap-runner";
import { ContainerPool } from "../lib/sandbox/container-pool";
import { settleSandboxRemovals } from "../lib/sandbox/docker-container";
import { dockerClient, resolveSandboxImageId, runInDocker } from "../lib/sandbox/docker-runner";
import { dockerHasGvisor } from "../lib/sandbox/gvisor";
import { memoryEnforcement } from "../lib/sandbox/memory-cgroup";
import { rootfsDirOf } from "../lib/sandbox/rootfs";
import { buildSpec, defaultLimits, type SandboxSpec } from "../lib/sandbox/spec";
import type { SandboxRunResult } from "../lib/sandbox/types";

const RUNS = Number(process.argv[2] ?? 20);

type Program = { name: string; code: string; expect: string };
const PROGRAMS: Program[] = [
  { name: "print", code: "print('hi')\n", expect: "hi\n" },
  { name: "pandas", code: "import pandas as pd; print(pd.DataFrame({'a':[1]}).sum())\n", expect: "a    1\ndtype: int64\n" },
];

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

// The sandboxes' environment (docker-runner.ts CONTAINER_ENV), not this process's.
const BARE_ENV = { PATH: "/usr/bin:/bin", LANG: "C.UTF-8", OPENBLAS_NUM_THREADS: "1", OMP_NUM_THREADS: "1" } as unknown as NodeJS.ProcessEnv;

/** A python3 with no isolation: `command` followed by `-c <code>`. */
function bare(command: string[], program: Program): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let out = "";
    const child = spawn(command[0], [...command.slice(1), "-c", program.code], { stdio: ["ignore", "pipe", "inherit"], env: BARE_ENV });
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("close", (status) => {
      if (status !== 0 || out !== program.expect) reject(new Error(`bad bare run of ${program.name}: ${status} ${JSON.stringify(out)}`));
      else resolve(performance.now() - started);
    });
  });
}

/** End to end as a caller sees it: includes queueing, everything up to the result. */
async function sandboxed(program: Program, run: () => Promise<SandboxRunResult>): Promise<number> {
  const started = performance.now();
  const result = await run();
  const totalMs = performance.now() - started;
  if (result.exitCode !== 0 || result.stdout !== program.expect) throw new Error(`bad run of ${program.name}: ${JSON.stringify(result)}`);
  return totalMs;
}

type Row = {
  name: string;
  /** Programs it does not run (the host's python3 has no pandas). */
  only?: string;
  once: (program: Program) => Promise<number>;
  before: (program: Program) => Promise<void>;
  samples: Map<string, number[]>;
};

function row(name: string, once: Row["once"], before: Row["before"] = async () => {}, only?: string): Row {
  return { name, once, before, only, samples: new Map(PROGRAMS.map((p) => [p.name, []])) };
}

/**
 * One warm-up each, then RUNS rounds in which every row takes one sample of every program, its two
 * programs back to back (so a row's pandas÷print compares samples taken under the same load).
 */
async function measureInTurns(rows: Row[]): Promise<void> {
  for (let round = -1; round < RUNS; round++) {
    for (const r of rows) {
      for (const program of round % 2 === 0 ? PROGRAMS : [...PROGRAMS].reverse()) {
        if (r.only && r.only !== program.name) continue;
        await r.before(program);
        await settleSandboxRemovals();
        const ms = await r.once(program);
        if (round >= 0) r.samples.get(program.name)!.push(ms);
      }
    }
  }
}

async function main(): Promise<void> {
  const limits = defaultLimits();
  const rows: Row[] = [];
  const pools: ContainerPool[] = [];

  let dockerSpec: SandboxSpec | null = null;
  try {
    await dockerClient().ping();
    dockerSpec = buildSpec("container", await resolveSandboxImageId(), limits);
  } catch (err) {
    console.log(`docker: skipped (${err instanceof Error ? err.message : String(err)})`);
  }
  const gvisorSpec = dockerSpec && (await dockerHasGvisor(dockerClient()).catch(() => false)) ? { ...dockerSpec, isolation: "gvisor" as const } : null;
  if (dockerSpec && !gvisorSpec) console.log("gvisor: skipped (runsc is not registered with Docker; scripts/ensure-system.sh as root)");

  const pooled = (label: string, spec: SandboxSpec) => {
    const pool = new ContainerPool({ size: 2 });
    pools.push(pool);
    return row(`${label}, pooled (warm interpreter)`, (p) => sandboxed(p, () => runInDocker(spec, p.code, { pool })), async () => {
      await pool.whenFull(spec);
      await settleSandboxRemovals();
    });
  };
  const cold = (label: string, spec: SandboxSpec) => row(`${label}, cold`, (p) => sandboxed(p, () => runInDocker(spec, p.code, { pool: null })));
  if (dockerSpec) rows.push(pooled("docker", dockerSpec));
  if (gvisorSpec) rows.push(pooled("gvisor", gvisorSpec));
  if (dockerSpec) rows.push(cold("docker", dockerSpec));
  if (gvisorSpec) rows.push(cold("gvisor", gvisorSpec));

  // bubblewrap on the sandbox image's rootfs (target: ≤ 1.5× bare python).
  const bwrapSpec = buildSpec("namespace", await bwrapImage(), limits);
  const probe = await probeBwrap(bwrapSpec);
  console.log(`bwrap memory limit: ${memoryEnforcement().description}`);
  if (probe.ok) rows.push(row("bubblewrap (image rootfs)", (p) => sandboxed(p, () => runInBwrap(bwrapSpec, p.code))));
  else console.log(`bwrap: skipped (${probe.reason})`);

  // The baseline: the same interpreter and libraries with no isolation at all.
  const rootfs = rootfsDirOf(bwrapSpec.image);
  const chroot = existsSync("/usr/sbin/chroot") ? "/usr/sbin/chroot" : "/usr/bin/chroot";
  const baseline = row("bare python3 (image's, chroot)", (p) => bare([chroot, rootfs, "/usr/bin/python3", "-I"], p));
  rows.push(baseline);
  rows.push(row("bare python3 (host's)", (p) => bare(["/usr/bin/python3", "-I"], p), undefined, "print"));

  const loadBefore = os.loadavg();
  await measureInTurns(rows);
  const loadAfter = os.loadavg();
  for (const pool of pools) await pool.drain();
  await settleSandboxRemovals();

  const fmt = (n: number) => n.toFixed(1).padStart(8);
  const ratio = (n: number) => `${n.toFixed(2).padStart(6)}x`;
  console.log(`\n${RUNS} runs each (after one warm-up), execute→completion in ms, runners in turns`);
  console.log(`load average (1/5/15 min) before: ${loadBefore.map((l) => l.toFixed(2)).join(" ")}, after: ${loadAfter.map((l) => l.toFixed(2)).join(" ")}; ${os.cpus().length} cores`);
  console.log(`print: ${JSON.stringify(PROGRAMS[0].code)}  pandas: ${JSON.stringify(PROGRAMS[1].code)}\n`);
  const p50 = (r: Row, program: string) => percentile(r.samples.get(program)!, 50);
  console.log(`${"runner".padEnd(36)}   print p50      p95  ×bare  pandas p50      p95  ×bare  pandas÷print`);
  for (const r of rows) {
    const cells: string[] = [];
    for (const program of PROGRAMS) {
      const samples = r.samples.get(program.name)!;
      if (samples.length === 0) {
        cells.push(`${"-".padStart(12)}${"-".padStart(9)}${"-".padStart(7)}`);
        continue;
      }
      cells.push(`${fmt(percentile(samples, 50)).padStart(12)}${fmt(percentile(samples, 95)).padStart(9)}${ratio(percentile(samples, 50) / p50(baseline, program.name))}`);
    }
    const both = r.samples.get("pandas")!.length > 0 && r.samples.get("print")!.length > 0;
    console.log(`${r.name.padEnd(36)}${cells.join(" ")}  ${both ? ratio(p50(r, "pandas") / p50(r, "print")) : "-"}`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
