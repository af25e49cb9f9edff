// The warm pool against real Docker (and gVisor): a container serves one run only, its warm
// interpreter behaves like a cold one and its time limit starts with the code, the pool leaves nothing
// behind, never hands out a container made for another spec, and survives its daemon restarting
// (a private dockerd started here, never the machine's). Fails when Docker is missing unless
// SANDBOX_TESTS=skip-docker says to skip.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import Docker from "dockerode";
import { afterAll, describe, expect, it } from "vitest";
import { ContainerPool } from "./container-pool";
import { processOwner, SANDBOX_OWNER_LABEL } from "./container-owner";
import { settleSandboxRemovals, startContainer } from "./docker-container";
import { containerOptions, dockerClient, pooledContainerOptions, resolveSandboxImageId, runInDocker, sandboxImageTag, type WarmContainerSource } from "./docker-runner";
import { dockerHasGvisor } from "./gvisor";
import { leaseRunUid, RUN_UID_BASE } from "./run-uid";
import { buildSpec, defaultLimits, type SandboxSpec } from "./spec";
import { readEnv } from "@/lib/env";

const SKIP_UNAVAILABLE = readEnv("SANDBOX_TESTS") === "skip-docker";
const MB = 1024 * 1024;

async function dockerSpec(docker: Docker): Promise<SandboxSpec | null> {
  try {
    await docker.ping();
    return buildSpec("container", await resolveSandboxImageId(sandboxImageTag(), docker), { ...defaultLimits({}), memoryBytes: 128 * MB, timeoutMs: 8000 });
  } catch {
    return null;
  }
}

const mainSpec = await dockerSpec(dockerClient());
const gvisorHere = mainSpec !== null && (await dockerHasGvisor(dockerClient()).catch(() => false));

/** This process's sandbox containers (other test files and helpers share the daemon). */
async function ourContainers(docker: Docker = dockerClient()): Promise<string[]> {
  const list = await docker.listContainers({ all: true, filters: { label: [`${SANDBOX_OWNER_LABEL}=${processOwner()}`] } });
  return list.map((c) => c.Id);
}

/** Runs `code` and reports which container it ran in. */
async function runTracked(spec: SandboxSpec, code: string, opts: { pool: WarmContainerSource | null; docker?: Docker }) {
  let containerId = "";
  const result = await runInDocker(spec, code, {
    ...opts,
    onContainer: (container) => {
      containerId = container.id;
    },
  });
  return { result, containerId };
}

describe("warm container pool", () => {
  it.skipIf(SKIP_UNAVAILABLE)("has Docker and the sandbox image here (set SANDBOX_TESTS=skip-docker to skip explicitly)", () => {
    expect(mainSpec, `Docker or ${sandboxImageTag()} unavailable`).not.toBeNull();
  });

  describe.skipIf(mainSpec === null)("on the machine's daemon", () => {
    const spec = mainSpec as SandboxSpec;

    afterAll(async () => {
      await settleSandboxRemovals();
    });

    it("creates pooled containers with exactly the cold run's hardening, a uid of their own and the owner label", async () => {
      const pool = new ContainerPool({ size: 2 });
      try {
        await pool.whenFull(spec);
        const docker = dockerClient();
        const pooled = await Promise.all((await ourContainers()).map((id) => docker.getContainer(id).inspect()));
        expect(pooled).toHaveLength(2);
        const cold = containerOptions(spec, RUN_UID_BASE);
        for (const info of pooled) {
          expect(info.State.Running).toBe(true);
          expect(info.Image).toBe(spec.image);
          expect(info.Config.Labels[SANDBOX_OWNER_LABEL]).toBe(processOwner()); // the start-up sweep can reap it after a crash
          expect(Number(info.Config.User.split(":")[0])).toBeGreaterThanOrEqual(RUN_UID_BASE);
          // The main process is the warm interpreter (python3 -I -u, like the cold command's), which
          // waits for the program and holds the cold run's in-container time limit.
          expect(info.Config.Cmd).toEqual(pooledContainerOptions(spec, RUN_UID_BASE).Cmd);
          expect(info.Config.Cmd?.slice(0, 4)).toEqual(["python3", "-I", "-u", "-c"]);
          expect(info.Config.Cmd?.[5]).toBe(`${String(cold.Cmd?.[4]).replace(/s$/, "")}`);
          expect({ User: info.Config.User.split(":")[1], WorkingDir: info.Config.WorkingDir, Env: info.Config.Env, Image: info.Config.Image })
            .toEqual({ User: String(cold.User).split(":")[1], WorkingDir: cold.WorkingDir, Env: cold.Env, Image: cold.Image });
          const h = info.HostConfig;
          const c = cold.HostConfig!;
          expect({
            NetworkMode: h.NetworkMode, ReadonlyRootfs: h.ReadonlyRootfs, Tmpfs: h.Tmpfs, CapDrop: h.CapDrop, SecurityOpt: h.SecurityOpt,
            Privileged: h.Privileged, Memory: h.Memory, MemorySwap: h.MemorySwap, NanoCpus: h.NanoCpus, PidsLimit: h.PidsLimit,
            Ulimits: h.Ulimits, IpcMode: h.IpcMode, ShmSize: h.ShmSize,
          }).toEqual({
            NetworkMode: c.NetworkMode, ReadonlyRootfs: c.ReadonlyRootfs, Tmpfs: c.Tmpfs, CapDrop: c.CapDrop, SecurityOpt: c.SecurityOpt,
            Privileged: c.Privileged, Memory: c.Memory, MemorySwap: c.MemorySwap, NanoCpus: c.NanoCpus, PidsLimit: c.PidsLimit,
            Ulimits: c.Ulimits, IpcMode: c.IpcMode, ShmSize: c.ShmSize,
          });
        }
        expect(pooled[0].Config.User).not.toBe(pooled[1].Config.User);
      } finally {
        await pool.drain();
      }
    }, 120_000);

    // Warm interpreters (warm-interpreter.ts) under runc and under gVisor: one container, one run.
    describe.each(["container", "gvisor"] as const)("a warm interpreter under %s", (isolation) => {
      const runtimeSpec = { ...spec, isolation };
      const skip = isolation === "gvisor" && !gvisorHere;

      it.skipIf(skip && SKIP_UNAVAILABLE)("has its runtime here", () => {
        expect(skip, "runsc is not registered with Docker (scripts/ensure-system.sh as root)").toBe(false);
      });

      it.skipIf(skip)("never serves two runs: run 2 sees neither run 1's file, its background process nor its interpreter's state", async () => {
        const pool = new ContainerPool({ size: 1 });
        try {
          await pool.whenFull(runtimeSpec);
          const first = await runTracked(
            runtimeSpec,
            [
              "import builtins, subprocess, sys, pandas",
              "open('/tmp/left-by-run-1', 'w').write('x')",
              "subprocess.Popen(['sleep', '31337'], start_new_session=True)",
              "pandas.left_by_run_1 = True",
              "builtins.left_by_run_1 = True",
              "sys.modules['left_by_run_1'] = sys",
              "print('planted')",
            ].join("\n"),
            { pool },
          );
          expect(first.result).toMatchObject({ exitCode: 0, stdout: "planted\n" });
          await pool.whenFull(runtimeSpec);
          const second = await runTracked(
            runtimeSpec,
            [
              "import builtins, os, sys, pandas",
              "procs = [open(f'/proc/{p}/cmdline', 'rb').read() for p in os.listdir('/proc') if p.isdigit()]",
              "print(os.path.exists('/tmp/left-by-run-1'), any(b'31337' in c for c in procs), hasattr(pandas, 'left_by_run_1'),",
              "      hasattr(builtins, 'left_by_run_1'), 'left_by_run_1' in sys.modules)",
            ].join("\n"),
            { pool },
          );
          expect(second.result).toMatchObject({ exitCode: 0, stdout: "False False False False False\n" });
          expect(pool.stats().handedOut).toBe(2); // both runs were pooled, not cold
          expect(second.containerId).not.toBe(first.containerId);
          await settleSandboxRemovals();
          expect(await ourContainers()).not.toContain(first.containerId); // destroyed after its run
        } finally {
          await pool.drain();
        }
      }, 180_000);

      it.skipIf(skip)("counts the time limit from the code's start: a container idle past the limit still runs its program, and the limit still holds", async () => {
        // The in-container limit is the spec's plus a 2 s grace: the container waits past both.
        const limited = { ...runtimeSpec, timeoutMs: 1000 };
        const pool = new ContainerPool({ size: 1 });
        try {
          await pool.whenFull(limited);
          await new Promise((resolve) => setTimeout(resolve, 3500));
          const quick = await runTracked(limited, "print('still in time')\n", { pool });
          expect(quick.result).toMatchObject({ exitCode: 0, timedOut: false, stdout: "still in time\n" });
          await pool.whenFull(limited);
          await new Promise((resolve) => setTimeout(resolve, 3500));
          const slow = await runTracked(limited, "print('looping', flush=True)\nwhile True:\n    pass\n", { pool });
          expect(slow.result).toMatchObject({ timedOut: true, exitCode: null, stdout: "looping\n" });
          expect(pool.stats().handedOut).toBe(2);
        } finally {
          await pool.drain();
        }
      }, 180_000);

      it.skipIf(skip)("runs the program as a cold `python3 -I -u -` does: same output, traceback and exit status", async () => {
        const pool = new ContainerPool({ size: 1 });
        const program = [
          "import sys",
          "print(__name__, sys.argv, sys.flags.isolated, sys.stdin.read() == '', sorted(k for k in globals() if not k.startswith('__')))",
          "def f():",
          "    1/0",
          "f()",
        ].join("\n");
        try {
          await pool.whenFull(runtimeSpec);
          const warm = await runTracked(runtimeSpec, program, { pool });
          const cold = await runTracked(runtimeSpec, program, { pool: null });
          expect(pool.stats().handedOut).toBe(1);
          expect(warm.result.stdout).toBe("__main__ ['-'] 1 True ['sys']\n");
          for (const r of [warm.result, cold.result]) expect(r.stderr).toMatch(/^Traceback \(most recent call last\):\n {2}File "<stdin>", line 5, in <module>\n/);
          expect({ stdout: warm.result.stdout, stderr: warm.result.stderr, exitCode: warm.result.exitCode })
            .toEqual({ stdout: cold.result.stdout, stderr: cold.result.stderr, exitCode: cold.result.exitCode });
          expect(warm.result.exitCode).toBe(1);
          await pool.whenFull(runtimeSpec);
          const exit = await runTracked(runtimeSpec, "raise SystemExit(3)\n", { pool });
          expect(exit.result).toMatchObject({ exitCode: 3, stdout: "", stderr: "" });
          await pool.whenFull(runtimeSpec);
          const syntax = await runTracked(runtimeSpec, "print(\n", { pool });
          expect(syntax.result.exitCode).toBe(1);
          expect(syntax.result.stderr).toMatch(/File "<stdin>", line 1[\s\S]*SyntaxError/);
        } finally {
          await pool.drain();
        }
      }, 180_000);
    });

    it("leaves no container behind after 200 runs", async () => {
      await settleSandboxRemovals();
      const before = await ourContainers();
      const pool = new ContainerPool({ size: 2 });
      const seen = new Set<string>();
      try {
        await pool.whenFull(spec);
        // Two at a time (SANDBOX_CONCURRENCY's default): some runs find the pool empty and go cold.
        let next = 0;
        const worker = async () => {
          while (next < 200) {
            const i = next++;
            const { result, containerId } = await runTracked(spec, `print(${i})\n`, { pool });
            expect(result).toMatchObject({ exitCode: 0, stdout: `${i}\n` });
            expect(seen.has(containerId)).toBe(false); // one container, one run
            seen.add(containerId);
          }
        };
        await Promise.all([worker(), worker()]);
      } finally {
        await pool.drain();
      }
      await settleSandboxRemovals();
      expect(seen.size).toBe(200);
      expect(pool.stats().handedOut).toBeGreaterThan(0);
      expect(await ourContainers()).toEqual(before);
    }, 900_000);

    it("discards pooled containers made for another spec and never runs code in them", async () => {
      const pool = new ContainerPool({ size: 2 });
      const other = { ...spec, memoryBytes: spec.memoryBytes + 64 * MB };
      try {
        await pool.whenFull(spec);
        const warmForSpec = await ourContainers();
        expect(warmForSpec).toHaveLength(2);
        let memory = 0;
        const run = await runInDocker(other, "print('other')\n", {
          pool,
          onContainer: async (container) => {
            expect(warmForSpec).not.toContain(container.id);
            memory = (await container.inspect()).HostConfig.Memory ?? 0;
          },
        });
        expect(run).toMatchObject({ exitCode: 0, stdout: "other\n" });
        expect(memory).toBe(other.memoryBytes);
        expect(pool.stats()).toMatchObject({ handedOut: 0, discarded: 2 });
        await settleSandboxRemovals();
        const left = await ourContainers();
        for (const id of warmForSpec) expect(left).not.toContain(id);
        // The pool now keeps containers for the new spec.
        await pool.whenFull(other);
        const pooled = await runTracked(other, "print('warm')\n", { pool });
        expect(pooled.result).toMatchObject({ exitCode: 0, stdout: "warm\n" });
        expect(pool.stats().handedOut).toBe(1);
      } finally {
        await pool.drain();
      }
    }, 120_000);

    it("runs the code in a fresh container when the one handed out turns out dead before the code started", async () => {
      const docker = dockerClient();
      const uid = leaseRunUid();
      const dead = await startContainer(docker, pooledContainerOptions(spec, uid.uid), { uid: uid.uid, releaseUid: uid.release, pooled: true });
      await dead.container.kill({ signal: "SIGKILL" });
      await dead.exited;
      let stale = 0;
      const source: WarmContainerSource = { docker, take: () => dead, reportStale: () => void stale++ };
      const { result, containerId } = await runTracked(spec, "print('ran once')\n", { pool: source });
      expect(result).toMatchObject({ exitCode: 0, stdout: "ran once\n", stderr: "" });
      expect(stale).toBe(1);
      expect(containerId).not.toBe(dead.container.id);
      await dead.dispose();
    }, 120_000);
  });

  describe.skipIf(mainSpec === null)("when its Docker daemon restarts (a private dockerd)", () => {
    const root = "/var/tmp/countersign-pool-dockerd";
    const socket = `${root}/docker.sock`;
    let daemon: ChildProcess | null = null;
    let privateDocker: Docker | null = null;
    let unavailable = "";

    async function startDaemon(): Promise<Docker> {
      mkdirSync(root, { recursive: true });
      writeFileSync(`${root}/daemon.json`, "{}\n"); // not the machine's daemon.json
      // Flags as in scripts/start-dockerd.sh, with a root, state, pidfile and socket of its own.
      daemon = spawn(
        "dockerd",
        [
          `--config-file=${root}/daemon.json`, `--data-root=${root}/data`, `--exec-root=${root}/exec`, `--pidfile=${root}/dockerd.pid`,
          `--host=unix://${socket}`, "--bridge=none", "--iptables=false", "--ip6tables=false", "--storage-driver=overlay2", "--shutdown-timeout=2",
        ],
        { stdio: ["ignore", openSync(`${root}/dockerd.log`, "a"), openSync(`${root}/dockerd.log`, "a")] },
      );
      const docker = new Docker({ socketPath: socket });
      for (let i = 0; i < 120; i++) {
        if (daemon.exitCode !== null) break;
        try {
          await docker.ping();
          return docker;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
      throw new Error(`private dockerd did not answer on ${socket}`);
    }

    async function stopDaemon(): Promise<void> {
      const running = daemon;
      daemon = null;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once("exit", resolve));
      running.kill("SIGTERM");
      await exited;
    }

    afterAll(async () => {
      await stopDaemon();
    });

    it("the next run succeeds (cold while the pool rebuilds), then the pool refills and nothing is left behind", async (ctx) => {
      const spec = mainSpec as SandboxSpec;
      try {
        if (!existsSync("/usr/bin/dockerd") && !existsSync("/usr/sbin/dockerd")) throw new Error("dockerd is not installed");
        if (process.getuid?.() !== 0) throw new Error("starting dockerd needs root");
        const stale = readFileSync(`${root}/dockerd.pid`, "utf8").trim();
        if (stale && existsSync(`/proc/${stale}`) && readFileSync(`/proc/${stale}/cmdline`, "utf8").includes(root)) process.kill(Number(stale), "SIGTERM");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") unavailable = String(error);
      }
      if (!unavailable) {
        try {
          privateDocker = await startDaemon();
        } catch (error) {
          unavailable = String(error);
        }
      }
      if (unavailable) {
        if (SKIP_UNAVAILABLE) ctx.skip();
        throw new Error(`a private Docker daemon cannot start here: ${unavailable}`);
      }
      const docker = privateDocker as Docker;
      const images = await docker.listImages();
      if (!images.some((image) => image.Id === spec.image)) {
        // Once per data root: the private daemon keeps it for later runs of this test.
        execFileSync("sh", ["-c", `docker save ${spec.image} | docker -H unix://${socket} load`], { stdio: "ignore" });
      }

      const pool = new ContainerPool({ size: 2, docker });
      try {
        await pool.whenFull(spec);
        const before = await runTracked(spec, "print('before')\n", { pool, docker });
        expect(before.result).toMatchObject({ exitCode: 0, stdout: "before\n" });
        expect(pool.stats().handedOut).toBe(1);
        await pool.whenFull(spec);

        await stopDaemon();
        privateDocker = await startDaemon();
        // The pooled containers died with the daemon; the next run must not fail for it.
        const after = await runTracked(spec, "print('after')\n", { pool, docker });
        expect(after.result).toMatchObject({ exitCode: 0, stdout: "after\n" });
        const noticed = pool.stats();
        expect(noticed.discarded + noticed.stale).toBeGreaterThanOrEqual(2); // the two that died with the daemon were not run in

        await pool.whenFull(spec);
        const handedOut = pool.stats().handedOut;
        const warm = await runTracked(spec, "print('warm again')\n", { pool, docker });
        expect(warm.result).toMatchObject({ exitCode: 0, stdout: "warm again\n" });
        expect(pool.stats().handedOut).toBe(handedOut + 1);
      } finally {
        await pool.drain();
      }
      await settleSandboxRemovals();
      expect(await ourContainers(docker)).toEqual([]); // including the ones that died with the old daemon
    }, 600_000);
  });
});
