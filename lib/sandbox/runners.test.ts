// The same hostile snippets against every OS sandbox. A runner that is not available here FAILS
// (CI installs Docker and builds the image) unless SANDBOX_TESTS=skip-docker says to skip it.
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type Docker from "dockerode";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bwrapImage, probeBwrap, runInBwrap } from "./bwrap-runner";
import { containerOptions, dockerClient, pooledContainerOptions, resolveSandboxImageId, runInDocker, SANDBOX_LABEL, sandboxImageTag, sweepSandboxContainers } from "./docker-runner";
import { processOwner, SANDBOX_OWNER_LABEL } from "./container-owner";
import { ContainerPool } from "./container-pool";
import { settleSandboxRemovals } from "./docker-container";
import { filesTmpfs } from "./docker-files";
import { artifactCaps } from "./run-files";
import { RUN_UID_BASE } from "./run-uid";
import { dockerHasGvisor, dockerRuntime, GVISOR_KERNEL_RELEASE, hostPidsLimit } from "./gvisor";
import { buildSpec, defaultLimits, SANDBOX_SHM_BYTES, type SandboxSpec } from "./spec";
import type { RunOptions, SandboxRunResult } from "./types";
import { readEnv } from "@/lib/env";

const SKIP_UNAVAILABLE = readEnv("SANDBOX_TESTS") === "skip-docker";
const MB = 1024 * 1024;

/**
 * How long past a kill's moment a run may take to end: the kill, the daemon's exit report and the
 * stream's close, on a loaded 2-core machine. Without the kill these runs never end on their own.
 */
const KILL_ALLOWANCE_MS = 5000;

/**
 * A run's time from its code's first output to its end. A run's durationMs also counts starting
 * its container, which on a loaded machine (a cold gVisor sandbox above all) takes seconds that
 * say nothing about when it was killed; the code under test prints first thing.
 */
function runningMs(r: SandboxRunResult): number {
  if (r.firstOutputMs === null) throw new Error(`the run printed nothing: ${JSON.stringify(r)}`);
  return r.durationMs - r.firstOutputMs;
}

const testLimits = {
  ...defaultLimits({}),
  memoryBytes: 128 * MB,
  timeoutMs: 4000,
  pidsLimit: 32,
  outputLimitChars: 10_000,
};

type Runner = {
  name: string;
  /** Runs through Docker (runc or runsc): the container-level checks apply. */
  docker: boolean;
  available: boolean;
  reason: string;
  spec: SandboxSpec | null;
  /** The warm pool every run of this runner takes its container from. */
  pool?: ContainerPool;
  run: (spec: SandboxSpec, code: string, opts?: RunOptions & { onContainer?: (c: Docker.Container) => void | Promise<void>; pool?: ContainerPool }) => Promise<SandboxRunResult>;
};

// Other test files run sandboxes at the same time (vitest runs files in parallel), so the
// "nothing left behind" checks look only at containers and processes this file started.
const ourContainers = new Set<string>();

/** Docker with runc ("container"), or with gVisor's runsc ("gvisor"): the same probes run against both. */
async function dockerRunner(isolation: "container" | "gvisor"): Promise<Runner> {
  const base = {
    name: isolation === "gvisor" ? "gvisor" : "docker",
    docker: true,
    run: (spec: SandboxSpec, code: string, opts: Parameters<Runner["run"]>[2] = {}) =>
      runInDocker(spec, code, {
        ...opts,
        onContainer: async (container) => {
          ourContainers.add(container.id);
          await opts.onContainer?.(container);
        },
      }),
  };
  try {
    await dockerClient().ping();
  } catch (err) {
    return { ...base, available: false, reason: `Docker daemon does not answer: ${String(err)}`, spec: null };
  }
  let id: string;
  try {
    id = await resolveSandboxImageId();
  } catch {
    return { ...base, available: false, reason: `image ${sandboxImageTag()} missing (scripts/build-sandbox-image.sh)`, spec: null };
  }
  if (isolation === "gvisor" && !(await dockerHasGvisor(dockerClient()))) {
    return { ...base, available: false, reason: "runsc is not registered with Docker (scripts/ensure-system.sh as root)", spec: null };
  }
  return { ...base, available: true, reason: "ok", spec: buildSpec(isolation, id, testLimits) };
}

async function bwrapRunner(): Promise<Runner> {
  const base = { name: "bwrap", docker: false, run: (spec: SandboxSpec, code: string, opts?: RunOptions) => runInBwrap(spec, code, opts) };
  try {
    const spec = buildSpec("namespace", await bwrapImage(), testLimits);
    const probe = await probeBwrap(spec);
    return { ...base, available: probe.ok, reason: probe.reason, spec: probe.ok ? spec : null };
  } catch (err) {
    return { ...base, available: false, reason: String(err), spec: null };
  }
}

// The same probes through the warm pool, for Docker and for gVisor: every run gets a container
// created (and, for gVisor, booted under runsc) ahead of need for its exact spec, its Python already
// running with the libraries imported (warm-interpreter.ts; the pool is full before each run), so
// the warm path is held to the same bar as the cold one.
async function pooledDockerRunner(isolation: "container" | "gvisor"): Promise<Runner> {
  const docker = await dockerRunner(isolation);
  const pool = new ContainerPool({ size: 1 });
  return {
    ...docker,
    name: `${docker.name} (warm interpreter pool)`,
    pool,
    run: async (spec, code, opts = {}) => {
      // Not while a caller's abort timer runs (the wait would count against it): that run may go cold.
      if (!opts.signal) await pool.whenFull(spec);
      const handedOut = pool.stats().handedOut;
      const result = await docker.run(spec, code, { ...opts, pool });
      if (!opts.signal) expect(pool.stats().handedOut).toBeGreaterThan(handedOut); // it ran in a pooled container
      return result;
    },
  };
}

const runners = [
  await dockerRunner("container"),
  await pooledDockerRunner("container"),
  await dockerRunner("gvisor"),
  await pooledDockerRunner("gvisor"),
  await bwrapRunner(),
];

const HOST_SECRET = `ct-secret-${Math.random().toString(36).slice(2)}`;
process.env.SECRET_TOKEN = HOST_SECRET;

/** Whether a process belongs to this test file: in one of its containers, or a descendant of it. */
function startedHere(pid: string): boolean {
  try {
    const cgroup = readFileSync(`/proc/${pid}/cgroup`, "utf8");
    for (const id of ourContainers) if (cgroup.includes(id)) return true;
    let current = pid;
    for (let depth = 0; depth < 64; depth++) {
      const stat = readFileSync(`/proc/${current}/stat`, "utf8");
      const ppid = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1];
      if (ppid === String(process.pid)) return true;
      if (ppid === "0" || ppid === "1") return false;
      current = ppid;
    }
  } catch {
    // exited meanwhile
  }
  return false;
}

function sandboxPythonProcesses(): number {
  // Processes of this file still running the sandbox command line (`python3 -I -u -`), inside or outside Docker.
  let count = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (cmd.includes("-I") && cmd.includes("-u") && cmd.some((c) => c.endsWith("python3")) && startedHere(pid)) count++;
    } catch {
      // exited
    }
  }
  return count;
}

describe.each(runners)("$name sandbox", (runner) => {
  const skip = !runner.available && SKIP_UNAVAILABLE;

  it.skipIf(skip)("is available here (set SANDBOX_TESTS=skip-docker to skip explicitly)", () => {
    if (!runner.available) {
      throw new Error(`${runner.name} sandbox unavailable: ${runner.reason}. Set SANDBOX_TESTS=skip-docker to skip explicitly.`);
    }
  });

  describe.skipIf(!runner.available)("contains hostile code", () => {
    const spec = runner.spec as SandboxSpec;
    const isolation = spec?.isolation;
    let plantedDir = "";
    let plantedFile = "";
    const plantedSecret = `planted-${Math.random().toString(36).slice(2)}`;

    beforeAll(() => {
      // A host file the code must not read: under /root when we can, else a mktemp dir.
      const base = existsSync("/root") && process.getuid?.() === 0 ? "/root" : os.tmpdir();
      plantedDir = mkdtempSync(path.join(base, "countersign-planted-"));
      plantedFile = path.join(plantedDir, "secret.txt");
      writeFileSync(plantedFile, plantedSecret, { mode: 0o644 });
    });

    // Timed tests measure from the call: the pool is full for the file's spec before each test.
    beforeEach(async () => {
      if (runner.pool) await runner.pool.whenFull(spec);
    });

    afterAll(async () => {
      rmSync(plantedDir, { recursive: true, force: true });
      if (runner.docker) {
        await runner.pool?.drain();
        await settleSandboxRemovals(); // runs report before their container is removed
        const left = await dockerClient().listContainers({ all: true, filters: { label: [`${SANDBOX_LABEL}=1`] } });
        expect(ourContainers.size).toBeGreaterThan(0);
        expect(left.filter((c) => ourContainers.has(c.Id))).toEqual([]);
      }
      expect(sandboxPythonProcesses()).toBe(0);
    });

    it("runs a trivial snippet and streams its output", async () => {
      const chunks: string[] = [];
      const r = await runner.run(spec, "print('hello from the sandbox')\n", { onOutput: (_s, t) => chunks.push(t) });
      expect(r).toMatchObject({ isolation, exitCode: 0, timedOut: false, oomKilled: false, truncated: false });
      expect(r.stdout).toBe("hello from the sandbox\n");
      expect(chunks.join("")).toBe("hello from the sandbox\n");
      expect(r.firstOutputMs).not.toBeNull();
    });

    it(`runs the code ${runner.pool ? "in an interpreter that imported pandas ahead of need" : "in a fresh interpreter"}, as __main__`, async () => {
      const r = await runner.run(spec, "import sys\nprint('pandas' in sys.modules, __name__, sorted(k for k in globals() if not k.startswith('__')))\n");
      expect(r.stderr).toBe("");
      expect(r.stdout).toBe(`${runner.pool ? "True" : "False"} __main__ ['sys']\n`);
    });

    it("delivers output while the code still runs", async () => {
      const seen: number[] = [];
      const started = performance.now();
      // A 3 s pause: the first line's way out may lag on a loaded machine, never by seconds.
      const r = await runner.run(spec, "import time\nprint('first')\ntime.sleep(3)\nprint('second')\n", {
        onOutput: () => seen.push(performance.now() - started),
      });
      expect(r.stdout).toBe("first\nsecond\n");
      expect(seen[0]).toBeLessThan(r.durationMs - 1500);
    });

    it("reports every byte the code wrote to stdout and to stderr, up to the last, when it ends", async () => {
      // Docker runs end on the wrapper's end line, written to each stream after the code exited.
      const code = ["import sys", "for i in range(300):", "    sys.stdout.write(f'o{i}\\n')", "    sys.stderr.write(f'e{i}\\n')", "sys.stderr.write('last-err\\n')", "print('last-out')"].join("\n");
      const r = await runner.run(spec, code);
      const lines = (prefix: string) => Array.from({ length: 300 }, (_, i) => `${prefix}${i}\n`).join("");
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(`${lines("o")}last-out\n`);
      expect(r.stderr).toBe(`${lines("e")}last-err\n`);
    });

    if (runner.docker) {
      it("start-up removes a container whose supervising process is gone, however young, and leaves a live process's alone", async () => {
        const docker = dockerClient();
        const supervisor = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "ignore" });
        await once(supervisor, "spawn");
        const options = containerOptions(spec);
        const orphan = await docker.createContainer({ ...options, Labels: { ...options.Labels, [SANDBOX_OWNER_LABEL]: processOwner(supervisor.pid!) } });
        const mine = await docker.createContainer(options);
        ourContainers.add(orphan.id);
        ourContainers.add(mine.id);
        supervisor.kill("SIGKILL"); // the console that started the run crashes
        await once(supervisor, "exit");
        await sweepSandboxContainers(15 * 60_000, docker);
        const left = new Set((await docker.listContainers({ all: true, filters: { label: [`${SANDBOX_LABEL}=1`] } })).map((c) => c.Id));
        expect(left.has(orphan.id)).toBe(false);
        expect(left.has(mine.id)).toBe(true);
        await mine.remove({ force: true });
      });

      it("ends at its time limit on its own when nothing supervises it (the console died mid-run)", async () => {
        // Only the container: no runner timer, no kill from this process. A warm container is told
        // to go first (the pool's go line), then gets the marker and the code like a cold one.
        const docker = dockerClient();
        const limited = { ...spec, timeoutMs: 1000 };
        const container = await docker.createContainer(runner.pool ? pooledContainerOptions(limited, RUN_UID_BASE) : containerOptions(limited));
        ourContainers.add(container.id);
        try {
          const stream = (await container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as NodeJS.ReadWriteStream;
          stream.on("data", () => {});
          const exited = container.wait({ condition: "next-exit" }) as Promise<{ StatusCode: number }>;
          await container.start();
          // The first line is the run's marker (docker-files.ts), the rest the code.
          stream.end(`${runner.pool ? "run\n" : ""}marker\nimport signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nwhile True:\n    pass\n`);
          const { StatusCode } = await exited;
          expect(StatusCode).toBe(137); // SIGKILL at the limit (plus grace), from inside the container
        } finally {
          await container.remove({ force: true });
        }
      }, 30_000);

    it("applies every hardening field to the container (inspect while it runs)", async () => {
        let info: Docker.ContainerInspectInfo | null = null;
        await runner.run(spec, "import time\ntime.sleep(0.5)\n", {
          onContainer: async (c) => {
            info = await c.inspect();
          },
        });
        const i = info as unknown as Docker.ContainerInspectInfo;
        expect(i.State.Running).toBe(true);
        expect(i.Image).toBe(spec.image);
        expect(i.Config.User).toMatch(/^\d+:65534$/);
        expect(Number(i.Config.User.split(":")[0])).toBeGreaterThanOrEqual(RUN_UID_BASE); // a uid of its own (run-uid.ts)
        expect(i.Config.Labels[SANDBOX_LABEL]).toBe("1");
        expect(i.Config.Env.some((e) => e.startsWith("SECRET_TOKEN"))).toBe(false);
        expect(i.Config.Env.filter((e) => !/^(?:PATH|LANG|OPENBLAS_NUM_THREADS|OMP_NUM_THREADS)=/.test(e))).toEqual([]);
        expect(i.Config.OpenStdin).toBe(true);
        expect(i.Config.StdinOnce).toBe(true);
        expect((i.Config as { NetworkDisabled?: boolean }).NetworkDisabled).toBe(true); // missing from @types/dockerode
        expect(i.Mounts).toEqual([]); // code arrives on stdin, not through a mount
        const h = i.HostConfig;
        expect(h.NetworkMode).toBe("none");
        expect(h.ReadonlyRootfs).toBe(true);
        expect(h.Tmpfs).toEqual({ "/tmp": `rw,noexec,nosuid,nodev,size=${spec.tmpfsBytes}`, ...filesTmpfs(artifactCaps()) });
        expect(h.CapDrop).toEqual(["ALL"]);
        expect(h.CapAdd ?? null).toBeNull();
        expect(h.Privileged).toBe(false);
        expect(h.SecurityOpt).toEqual(["no-new-privileges"]);
        expect(h.Memory).toBe(spec.memoryBytes);
        expect(h.MemorySwap).toBe(spec.memoryBytes);
        expect(h.NanoCpus).toBe(spec.nanoCpus);
        expect(h.Runtime).toBe(dockerRuntime(spec.isolation)); // runsc for gVisor, runc otherwise
        expect(h.PidsLimit).toBe(hostPidsLimit(spec)); // under gVisor: its own threads; the code's processes are RLIMIT_NPROC inside
        expect(h.AutoRemove).toBe(false);
        expect(h.ShmSize).toBe(SANDBOX_SHM_BYTES);
        expect(h.Binds ?? null).toBeNull();
        expect(h.Ulimits).toEqual(
          expect.arrayContaining([
            { Name: "fsize", Soft: spec.fileSizeBytes, Hard: spec.fileSizeBytes },
            { Name: "nofile", Soft: spec.openFiles, Hard: spec.openFiles },
            { Name: "nproc", Soft: spec.pidsLimit, Hard: spec.pidsLimit },
          ]),
        );
      });
    }

    if (isolation === "gvisor") {
      it("runs on gVisor's kernel, not the host's", async () => {
        const r = await runner.run(spec, "import platform\nprint(platform.release())\n");
        expect(r.stdout).toBe(`${GVISOR_KERNEL_RELEASE}\n`);
        expect(os.release()).not.toBe(GVISOR_KERNEL_RELEASE);
      });
    }

    it("runs unprivileged with no capabilities, no-new-privs, minimal env and the spec's rlimits", async () => {
      const r = await runner.run(
        spec,
        [
          "import os, json, resource, ctypes",
          "PR_GET_NO_NEW_PRIVS = 39  # read with prctl: gVisor's /proc/self/status has no NoNewPrivs line",
          "status = dict(l.split(':\\t', 1) for l in open('/proc/self/status').read().splitlines() if ':\\t' in l)",
          "print(json.dumps({",
          "  'uid': os.getuid(), 'gid': os.getgid(), 'euid': os.geteuid(),",
          "  'capEff': status['CapEff'].strip(), 'capBnd': status['CapBnd'].strip(), 'noNewPrivs': str(ctypes.CDLL(None, use_errno=True).prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)),",
          "  'env': sorted(os.environ), 'home': sorted(os.listdir('/home')) if os.path.isdir('/home') else [],",
          "  'nproc': resource.getrlimit(resource.RLIMIT_NPROC)[1], 'fsize': resource.getrlimit(resource.RLIMIT_FSIZE)[1],",
          "  'nofile': resource.getrlimit(resource.RLIMIT_NOFILE)[1],",
          "  'net': sorted(os.listdir('/sys/class/net')) if os.path.isdir('/sys/class/net') else ['lo'],",
          "}))",
        ].join("\n"),
      );
      expect(r.stderr).toBe("");
      const facts = JSON.parse(r.stdout) as Record<string, unknown>;
      expect(facts).toMatchObject({ gid: 65534, capEff: "0000000000000000", noNewPrivs: "1" });
      // bubblewrap maps its run's own host uid to nobody inside; Docker has no user namespace, so
      // the code sees the run's own uid (run-uid.ts) — never root, never shared with another run.
      if (isolation === "namespace") expect(facts).toMatchObject({ uid: 65534, euid: 65534 });
      else {
        expect(facts.uid).toBeGreaterThanOrEqual(RUN_UID_BASE);
        expect(facts.euid).toBe(facts.uid);
      }
      expect(facts.env).not.toContain("SECRET_TOKEN");
      expect((facts.env as string[]).filter((k) => !["PATH", "LANG", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "PWD", "HOME", "HOSTNAME", "LC_CTYPE"].includes(k))).toEqual([]);
      expect(facts.home).toEqual([]); // no host home directories
      expect(facts.fsize).toBe(spec.fileSizeBytes);
      expect(facts.nofile).toBe(spec.openFiles);
      expect(facts.net).toEqual(["lo"]);
    });

    it("cannot open a network connection, not even to the host's loopback", async () => {
      let hostConnections = 0;
      const server = net.createServer((s) => {
        hostConnections++;
        s.destroy();
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const port = (server.address() as net.AddressInfo).port;
      try {
        const r = await runner.run(
          spec,
          [
            "import socket",
            "for target in [('1.1.1.1', 80), ('127.0.0.1', " + port + "), ('deb.debian.org', 80)]:",
            "    try:",
            "        socket.create_connection(target, timeout=2)",
            "        print('CONNECTED', target)",
            "    except OSError as e:",
            "        print('blocked', target[0], type(e).__name__)",
          ].join("\n"),
        );
        expect(r.stdout).not.toContain("CONNECTED");
        expect(r.stdout.match(/blocked/g)).toHaveLength(3);
        expect(hostConnections).toBe(0);
      } finally {
        server.close();
      }
    });

    it("cannot write outside /tmp, and its /tmp is not the host's", async () => {
      const marker = `countersign-escape-${Math.random().toString(36).slice(2)}`;
      const r = await runner.run(
        spec,
        [
          "for p in ['/etc/pwned', '/usr/pwned', '/pwned', '/var/pwned']:",
          "    try:",
          "        open(p, 'w').write('x')",
          "        print('WROTE', p)",
          "    except OSError as e:",
          "        print('denied', p, e.errno)",
          `open('/tmp/${marker}', 'w').write('inside')`,
          `print('tmp ok', open('/tmp/${marker}').read())`,
        ].join("\n"),
      );
      expect(r.stdout).not.toContain("WROTE");
      expect(r.stdout.match(/denied/g)).toHaveLength(4);
      expect(r.stdout).toContain("tmp ok inside");
      expect(existsSync(`/tmp/${marker}`)).toBe(false);
      expect(existsSync("/pwned")).toBe(false);
    });

    it("has no writable space beyond its tmpfs limit: /dev/shm is tiny and /dev is read-only", async () => {
      const tmpfsBytes = 8 * MB;
      const r = await runner.run(
        { ...spec, tmpfsBytes },
        [
          "import multiprocessing",
          "lock = multiprocessing.Lock()  # POSIX semaphores live in /dev/shm: they still work",
          "print('semaphore ok')",
          "def fill(prefix):",
          "    written = 0",
          "    for i in range(256):",
          "        try:",
          "            with open('%s%d' % (prefix, i), 'wb') as f:",
          "                for _ in range(4):",
          "                    f.write(b'x' * (1024 * 1024))",
          "                    f.flush()",
          "                    written += 1024 * 1024",
          "        except OSError:",
          "            return written",
          "    return written",
          "tmp = fill('/tmp/f')",
          "shm = fill('/dev/shm/f')",
          "dev = fill('/dev/f')",
          "print('written', tmp, shm, dev)",
        ].join("\n"),
      );
      expect(r.stderr).toBe("");
      expect(r.stdout).toContain("semaphore ok");
      const [tmp, shm, dev] = (r.stdout.match(/written (\d+) (\d+) (\d+)/) ?? []).slice(1).map(Number);
      expect(tmp).toBeGreaterThan(0);
      expect(tmp).toBeLessThanOrEqual(tmpfsBytes);
      expect(shm).toBeLessThanOrEqual(SANDBOX_SHM_BYTES);
      expect(dev).toBe(0);
    });

    it("cannot read a file planted on the host or the host's environment", async () => {
      const r = await runner.run(
        spec,
        [
          "import os, glob",
          "out = []",
          `for p in [${JSON.stringify(plantedFile)}, '/proc/1/environ', '/proc/${process.pid}/environ', '/etc/shadow', '/root/.bash_history']:`,
          "    try:",
          "        out.append(open(p, errors='replace').read())",
          "    except OSError as e:",
          "        out.append('denied ' + p)",
          "out.append(repr(dict(os.environ)))",
          "for pid in os.listdir('/proc'):",
          "    if pid.isdigit():",
          "        try: out.append(open('/proc/%s/environ' % pid, errors='replace').read())",
          "        except OSError: pass",
          "print('\\n'.join(out))",
        ].join("\n"),
      );
      expect(r.stdout).toContain(`denied ${plantedFile}`);
      expect(r.stdout).not.toContain(plantedSecret);
      expect(r.stdout + r.stderr).not.toContain(HOST_SECRET);
      expect(r.stdout).not.toContain("SECRET_TOKEN");
    });

    it("contains a fork bomb (pids limit) and kills it at the deadline", async () => {
      const r = await runner.run(
        { ...spec, timeoutMs: 3000 },
        ["import os", "print('forking', flush=True)", "while True:", "    try:", "        os.fork()", "    except OSError:", "        pass"].join("\n"),
      );
      // Under gVisor the interpreters the bomb starts are charged to the sandbox's own memory, and in
      // a warm container each fork copies pages of the preloaded pandas as it touches them: the
      // spec's 128 MB can run out before the deadline. Stopped by a limit either way, and said which
      // (never an unexplained exit 137).
      if (isolation === "gvisor" || "pool" in runner) {
        expect(r.timedOut || r.oomKilled, JSON.stringify(r)).toBe(true);
        expect(r.exitCode).toBeNull();
      } else {
        expect(r.timedOut).toBe(true);
        expect(r.exitCode).toBeNull();
      }
      expect(r.stdout).toBe("forking\n");
      expect(runningMs(r)).toBeLessThan(3000 + KILL_ALLOWANCE_MS);
      // The host can still start processes, and nothing of the bomb is left.
      expect(execFileSync("/bin/echo", ["alive"]).toString()).toBe("alive\n");
      await new Promise((r2) => setTimeout(r2, 200));
      expect(sandboxPythonProcesses()).toBe(0);
    });

    it("one run holding every process it may have leaves a concurrent run able to fork", async () => {
      // RLIMIT_NPROC counts per uid, host-wide: runs sharing a uid would share one allowance.
      const holder = new AbortController();
      let holding: () => void = () => {};
      const held = new Promise<void>((resolve) => (holding = resolve));
      const a = runner.run(
        { ...spec, timeoutMs: 30_000 },
        [
          "import os, time",
          "n = 0",
          `for _ in range(${spec.pidsLimit}):`,
          "    try:",
          "        if os.fork() == 0:",
          "            time.sleep(60)",
          "            os._exit(0)",
          "        n += 1",
          "    except OSError:",
          "        break",
          "print('holding', n, flush=True)",
          "time.sleep(60)",
        ].join("\n"),
        { signal: holder.signal, onOutput: (_s, text) => text.includes("holding") && holding() },
      );
      try {
        await Promise.race([held, a.then(() => expect.fail("run A ended before it held its processes"))]);
        const b = await runner.run(
          spec,
          ["import os", "ok = 0", "for _ in range(8):", "    pid = os.fork()", "    if pid == 0:", "        os._exit(0)", "    os.waitpid(pid, 0)", "    ok += 1", "print('forked', ok)"].join("\n"),
        );
        expect(b.stderr).toBe("");
        expect(b.stdout).toBe("forked 8\n");
      } finally {
        holder.abort();
        await a.catch(() => null); // A's container is gone before the file's leftover checks
      }
      const ra = await a;
      expect(ra.stdout).toMatch(/^holding \d+\n$/);
      expect(Number(ra.stdout.split(" ")[1])).toBeGreaterThanOrEqual(spec.pidsLimit - 4);
    });

    it("stops an allocation past the memory limit and reports it", async () => {
      // Time enough to reach the limit on a loaded machine (gVisor fills memory slower): this is about memory.
      const r = await runner.run({ ...spec, timeoutMs: 20_000 }, "data = b'x' * (400 * 1024 * 1024)\nprint('ALLOCATED', len(data))\n");
      expect(r.stdout).not.toContain("ALLOCATED");
      // Reported as out of memory under every runner, gVisor included (the host's OOM killer ends
      // its sandbox as a whole, which Docker's OOMKilled may miss: docker-runner.ts wasOomKilled):
      // never an unexplained exit 137.
      expect(r.oomKilled, JSON.stringify(r)).toBe(true);
      if (runner.docker) expect(r.exitCode).toBeNull();
      else expect(r.exitCode).not.toBe(0);
    });

    it("kills `while True` at the wall-clock timeout", async () => {
      const r = await runner.run({ ...spec, timeoutMs: 1500 }, "print('looping', flush=True)\nwhile True:\n    pass\n");
      expect(r).toMatchObject({ timedOut: true, exitCode: null, oomKilled: false });
      expect(r.durationMs).toBeGreaterThanOrEqual(1400);
      expect(runningMs(r)).toBeLessThan(1500 + KILL_ALLOWANCE_MS);
    });

    it("kills code that ignores SIGTERM and swallows KeyboardInterrupt", async () => {
      // Long enough for a cold gVisor sandbox on a loaded machine to start and print before the kill.
      const r = await runner.run(
        { ...spec, timeoutMs: 4000 },
        [
          "import signal",
          "signal.signal(signal.SIGTERM, signal.SIG_IGN)",
          "signal.signal(signal.SIGINT, signal.SIG_IGN)",
          "print('stubborn', flush=True)",
          "while True:",
          "    try:",
          "        while True: pass",
          "    except KeyboardInterrupt:",
          "        pass",
        ].join("\n"),
      );
      expect(r).toMatchObject({ timedOut: true, exitCode: null });
      expect(r.stdout).toBe("stubborn\n");
      expect(runningMs(r)).toBeLessThan(4000 + KILL_ALLOWANCE_MS);
    });

    it("truncates a 100 MB print at the output limit without holding it in memory", async () => {
      const before = process.memoryUsage();
      let forwarded = 0;
      const r = await runner.run(
        { ...spec, timeoutMs: 30_000 },
        "import sys\nchunk = 'x' * 1_000_000\nfor _ in range(100):\n    sys.stdout.write(chunk)\nprint('done', file=sys.stderr)\n",
        { onOutput: (_s, t) => (forwarded += t.length) },
      );
      const after = process.memoryUsage();
      expect(r.truncated).toBe(true);
      expect(r.exitCode).toBe(0); // it ran to the end: the pipe kept draining
      expect(r.stdout.length + r.stderr.length).toBeLessThanOrEqual(spec.outputLimitChars);
      expect(r.stdout.length).toBe(spec.outputLimitChars);
      expect(forwarded).toBe(spec.outputLimitChars);
      // 100 MB went through; the heap and buffers grew by far less.
      expect(after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers)).toBeLessThan(80 * MB);
    });

    it("reports a non-zero exit and the traceback", async () => {
      const a = await runner.run(spec, "raise SystemExit(3)\n");
      expect(a).toMatchObject({ exitCode: 3, timedOut: false, oomKilled: false });
      const b = await runner.run(spec, "print('before')\n1/0\n");
      expect(b.exitCode).toBe(1);
      expect(b.stdout).toBe("before\n");
      expect(b.stderr).toContain("ZeroDivisionError");
    });

    it("kills the run when the caller aborts", async () => {
      // Aborted once the code runs (a fixed delay could land in a slow container start instead).
      const controller = new AbortController();
      let abortedAt = 0;
      const abort = () => {
        if (abortedAt) return;
        abortedAt = performance.now();
        controller.abort();
      };
      const r = await runner.run({ ...spec, timeoutMs: 20_000 }, "print('looping', flush=True)\nwhile True:\n    pass\n", { signal: controller.signal, onOutput: abort });
      expect(r).toMatchObject({ aborted: true, timedOut: false, exitCode: null });
      expect(performance.now() - abortedAt).toBeLessThan(KILL_ALLOWANCE_MS);
    });

    it("has no package installer", async () => {
      const r = await runner.run(spec, "from pip._internal.cli.main import main\nprint('PIP AVAILABLE')\n");
      expect(r.stdout).not.toContain("PIP AVAILABLE");
      expect(r.exitCode).not.toBe(0);
    });
  });
});

describe("one interpreter for every runner", () => {
  // The warm pools' runners are the Docker and gVisor runners' images again (their pools are drained by now).
  const available = runners.filter((r) => r.available && !r.pool);
  const bwrap = runners.find((r) => r.name === "bwrap");
  const docker = runners.find((r) => r.name === "docker");

  it.skipIf(SKIP_UNAVAILABLE && !(bwrap?.available && docker?.available))(
    "bubblewrap, Docker and gVisor report the same python, numpy and pandas (bubblewrap runs the image's rootfs, not the host's python)",
    async () => {
      expect(bwrap?.available, bwrap?.reason).toBe(true);
      expect(docker?.available, docker?.reason).toBe(true);
      const code = "import sys, numpy, pandas\nprint(sys.version.split()[0], numpy.__version__, pandas.__version__, sys.executable)\n";
      const seen = new Map<string, string>();
      for (const runner of available) {
        const r = await runner.run({ ...(runner.spec as SandboxSpec), timeoutMs: 30_000 }, code);
        expect(r.stderr).toBe("");
        expect(r.exitCode).toBe(0);
        seen.set(runner.name, r.stdout);
      }
      expect(new Set(seen.values()).size).toBe(1);
      expect(seen.get("bwrap")).toMatch(/^3\.\d+\.\d+ \d+\.\d+\.\d+ \d+\.\d+\.\d+ \/usr\/bin\/python3\n$/);
    },
    60_000,
  );
});
