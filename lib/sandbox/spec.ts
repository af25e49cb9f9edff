// The sandbox spec: where and under which limits approved code runs. It is part of the hashed
// approval payload (SPEC invariant 2), so it is plain JSON — integers and strings only — and the
// runner executes exactly what it says (it never fills in limits of its own).
import { z } from "zod";
import { EnvError, processEnv, readEnv, type EnvSource } from "@/lib/env";

/**
 * How the code is isolated, weakest first: "namespace" (bubblewrap: Linux namespaces on the host
 * kernel), "container" (Docker with runc: namespaces, cgroups, seccomp on the host kernel),
 * "gvisor" (Docker with the runsc runtime: the code talks to gVisor's user-space kernel, not to
 * the host's). Part of the approved hash, so a reviewer approves the level, not just the code.
 */
export type SandboxIsolation = "container" | "namespace" | "gvisor";

export const SANDBOX_ISOLATIONS = ["container", "namespace", "gvisor"] as const satisfies readonly SandboxIsolation[];

export type SandboxSpec = {
  isolation: SandboxIsolation;
  /**
   * Docker image id ("sha256:…") for "container" and "gvisor"; for "namespace", "bwrap:" + the
   * directory holding the same image's root filesystem, named by its layer digest (rootfs.ts).
   * Specs stored before that named a host python3 ("bwrap:/usr/bin/python3"); they are refused.
   */
  image: string;
  memoryBytes: number;
  /** CPU quota in billionths of a CPU (1_000_000_000 = one core). */
  nanoCpus: number;
  pidsLimit: number;
  timeoutMs: number;
  /** Total characters kept from stdout + stderr; the rest is drained and dropped. */
  outputLimitChars: number;
  tmpfsBytes: number;
  /** Largest file the code may write (RLIMIT_FSIZE). */
  fileSizeBytes: number;
  /** RLIMIT_NOFILE. */
  openFiles: number;
  network: "none";
  /** "uid:gid" the code runs as. */
  user: string;
};

export type SandboxLimits = Omit<SandboxSpec, "isolation" | "image">;

export const SANDBOX_USER = "65534:65534";

/**
 * The size of /dev/shm in every sandbox. Writable space is SANDBOX_TMPFS_MB (/tmp); /dev/shm only
 * holds POSIX semaphores and small shared segments (multiprocessing), so it is kept tiny instead
 * of being a second, larger tmpfs next to /tmp.
 */
export const SANDBOX_SHM_BYTES = 1024 * 1024;
export const BWRAP_IMAGE_PREFIX = "bwrap:";

const MB = 1024 * 1024;

const int = (min: number, max: number) => z.number().int().min(min).max(max);

export const SandboxSpecSchema = z.strictObject({
  isolation: z.enum(SANDBOX_ISOLATIONS),
  image: z.string().regex(/^(sha256:[0-9a-f]{64}|bwrap:\/[A-Za-z0-9._/-]+)$/, "image must be a sha256 id or bwrap:/path"),
  memoryBytes: int(16 * MB, 64 * 1024 * MB),
  nanoCpus: int(10_000_000, 64_000_000_000),
  pidsLimit: int(8, 4096),
  timeoutMs: int(100, 3_600_000),
  outputLimitChars: int(100, 10_000_000),
  tmpfsBytes: int(1 * MB, 4096 * MB),
  fileSizeBytes: int(1024, 4096 * MB),
  openFiles: int(16, 65_536),
  network: z.literal("none"),
  user: z.string().regex(/^[1-9][0-9]{0,9}:[1-9][0-9]{0,9}$/, "user must be a non-root uid:gid"),
})
  .refine((spec) => spec.image.startsWith(BWRAP_IMAGE_PREFIX) === (spec.isolation === "namespace"), {
    message: "a namespace sandbox runs a bwrap: rootfs, a container or gvisor sandbox a sha256 image id",
    path: ["image"],
  }) satisfies z.ZodType<SandboxSpec>;

/** Validates a spec that comes back from storage or a client before anything runs with it. */
export function parseSandboxSpec(value: unknown): SandboxSpec {
  return SandboxSpecSchema.parse(value);
}

type EnvKnob = {
  env: "SANDBOX_MEMORY_MB" | "SANDBOX_CPU_MILLIS" | "SANDBOX_PIDS_LIMIT" | "SANDBOX_TIMEOUT_MS" | "SANDBOX_OUTPUT_LIMIT" | "SANDBOX_TMPFS_MB"
    | "SANDBOX_FILE_SIZE_MB" | "SANDBOX_OPEN_FILES";
  fallback: number;
  scale: number;
};

// Each limit: its variable (its range is declared in lib/env.ts), its default in the variable's
// own unit, and the unit's size.
const KNOBS = {
  memoryBytes: { env: "SANDBOX_MEMORY_MB", fallback: 256, scale: MB },
  nanoCpus: { env: "SANDBOX_CPU_MILLIS", fallback: 1000, scale: 1_000_000 },
  pidsLimit: { env: "SANDBOX_PIDS_LIMIT", fallback: 64, scale: 1 },
  timeoutMs: { env: "SANDBOX_TIMEOUT_MS", fallback: 10_000, scale: 1 },
  outputLimitChars: { env: "SANDBOX_OUTPUT_LIMIT", fallback: 10_000, scale: 1 },
  tmpfsBytes: { env: "SANDBOX_TMPFS_MB", fallback: 64, scale: MB },
  fileSizeBytes: { env: "SANDBOX_FILE_SIZE_MB", fallback: 16, scale: MB },
  openFiles: { env: "SANDBOX_OPEN_FILES", fallback: 64, scale: 1 },
} satisfies Record<keyof Omit<SandboxLimits, "network" | "user">, EnvKnob>;

export class SandboxConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SandboxConfigError";
  }
}

function readKnob(knob: EnvKnob, env: EnvSource): number {
  // A typo in a limit must not silently widen the sandbox, so refuse instead of defaulting.
  try {
    return (readEnv(knob.env, env) ?? knob.fallback) * knob.scale;
  } catch (error) {
    if (error instanceof EnvError) throw new SandboxConfigError(error.message);
    throw error;
  }
}

/** Limits from the environment (SANDBOX_MEMORY_MB, SANDBOX_TIMEOUT_MS, SANDBOX_OUTPUT_LIMIT, …). */
export function defaultLimits(env: EnvSource = processEnv()): SandboxLimits {
  return {
    memoryBytes: readKnob(KNOBS.memoryBytes, env),
    nanoCpus: readKnob(KNOBS.nanoCpus, env),
    pidsLimit: readKnob(KNOBS.pidsLimit, env),
    timeoutMs: readKnob(KNOBS.timeoutMs, env),
    outputLimitChars: readKnob(KNOBS.outputLimitChars, env),
    tmpfsBytes: readKnob(KNOBS.tmpfsBytes, env),
    fileSizeBytes: readKnob(KNOBS.fileSizeBytes, env),
    openFiles: readKnob(KNOBS.openFiles, env),
    network: "none",
    user: SANDBOX_USER,
  };
}

export function buildSpec(isolation: SandboxIsolation, image: string, limits: SandboxLimits = defaultLimits()): SandboxSpec {
  return parseSandboxSpec({ isolation, image, ...limits });
}

export function parseUser(user: string): { uid: number; gid: number } {
  const [uid, gid] = user.split(":").map(Number);
  return { uid, gid };
}
