// The warm pool: sandbox containers created and started ahead of need, so a run costs one write
// (its program on the already attached stdin) instead of a create and a start. Each container is
// created with exactly the cold run's options (pooledContainerOptions: only the main process
// differs, a warm interpreter with the image's analysis libraries imported that waits for its
// program, warm-interpreter.ts) and is handed out only once it is warm; a uid of its own from
// run-uid.ts, serves exactly one run and is then destroyed; the pool never hands out a container
// twice. Containers are keyed by everything that goes into their create options except the
// per-run uid (image id, limits, runtime, user's group, labels): a run only ever gets a container
// of its own key. Per runtime (HostConfig.Runtime: Docker's default runc, gVisor's runsc) the pool
// keeps one key, the last one run; a run with another key discards that runtime's containers and
// the pool refills for the new key. Unused for POOL_IDLE_MS, a key's containers are removed.
// gVisor containers are pooled like runc ones (their runtime is part of the key), started under
// runsc ahead of need: a gVisor run then pays neither the create nor gVisor's own boot.
import type Docker from "dockerode";
import type { ReadyContainer } from "./docker-container";
import { delay, removeLeftovers, settleSandboxRemovals, startContainer } from "./docker-container";
import { dockerClient, pooledContainerOptions, type WarmContainerSource } from "./docker-runner";
import { leaseRunUid } from "./run-uid";
import type { SandboxSpec } from "./spec";

/** How long containers of a key that no run asked for are kept. */
export const POOL_IDLE_MS = 5 * 60_000;
/**
 * The oldest a pooled container may be when handed out: well below the 15 minutes after which any
 * process's start-up sweep removes a sandbox container whatever its owner.
 */
export const POOL_MAX_AGE_MS = 10 * 60_000;
/** A run that is still going after this long no longer delays the refill behind it. */
const REFILL_AFTER_MS = 500;
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5_000;
/** A pooled container whose interpreter is not warm by then is discarded (the image is broken or the host swamped). */
const WARM_TIMEOUT_MS = 60_000;

export type ContainerPoolOptions = {
  /** Containers kept ready per key. */
  size: number;
  docker?: Docker;
  idleMs?: number;
};

export type ContainerPoolStats = {
  ready: number;
  /** Containers created for the pool (including ones that died or were discarded unused). */
  created: number;
  handedOut: number;
  /** Handed out but dead before the code started: the run went cold. */
  stale: number;
  /** Removed unused: another spec's, died while waiting, idle, drained. */
  discarded: number;
  /** Pool refills that failed (daemon unreachable, image gone). */
  fillFailures: number;
};

type Entry = { ready: ReadyContainer; key: string; dead: boolean; createdAt: number };

type Slot = {
  key: string;
  spec: SandboxSpec;
  ready: Entry[];
  filling: boolean;
  failures: number;
  retryTimer: NodeJS.Timeout | null;
  idleTimer: NodeJS.Timeout | null;
};

export class ContainerPool implements WarmContainerSource {
  readonly docker: Docker;
  readonly size: number;
  private readonly idleMs: number;
  /** By runtime: the one key kept warm for it. */
  private readonly slots = new Map<string, Slot>();
  private readonly fills = new Set<Promise<void>>();
  private closed = false;
  private readonly counts = { created: 0, handedOut: 0, stale: 0, discarded: 0, fillFailures: 0 };

  constructor(options: ContainerPoolOptions) {
    if (!Number.isInteger(options.size) || options.size < 1) throw new Error("a container pool needs a size of at least 1");
    this.size = options.size;
    this.docker = options.docker ?? dockerClient();
    this.idleMs = options.idleMs ?? POOL_IDLE_MS;
  }

  /** Starts filling for `spec` (e.g. at start-up, so the first run is warm too). */
  warm(spec: SandboxSpec): void {
    if (!pooledIsolation(spec) || this.closed) return;
    this.fill(this.slotFor(spec));
  }

  take(spec: SandboxSpec): ReadyContainer | null {
    if (!pooledIsolation(spec) || this.closed) return null;
    const slot = this.slotFor(spec);
    let entry: Entry | undefined;
    while ((entry = slot.ready.shift())) {
      if (entry.dead || entry.key !== slot.key || performance.now() - entry.createdAt > POOL_MAX_AGE_MS) {
        this.discard(entry);
        continue;
      }
      this.counts.handedOut++;
      // Refill once this run is over (or has run a while): a create and start next to a short run
      // would compete with it for the daemon and the CPU.
      const refill = () => this.fill(slot);
      void Promise.race([entry.ready.exited, delay(REFILL_AFTER_MS)]).then(refill, refill);
      return entry.ready;
    }
    this.fill(slot);
    return null;
  }

  reportStale(ready: ReadyContainer): void {
    this.counts.stale++;
    void ready.dispose();
  }

  stats(): ContainerPoolStats {
    let ready = 0;
    for (const slot of this.slots.values()) ready += slot.ready.filter((e) => !e.dead).length;
    return { ready, ...this.counts };
  }

  /** Resolves once `spec`'s key holds `size` ready containers (for tests and the benchmark). */
  async whenFull(spec: SandboxSpec, timeoutMs = 60_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const slot = this.slotFor(spec);
      if (slot.ready.filter((e) => !e.dead).length >= this.size) return;
      if (this.closed || performance.now() > deadline) throw new Error(`container pool did not fill within ${timeoutMs} ms`);
      this.fill(slot);
      await new Promise((resolve) => setTimeout(resolve, 20)); // keeps the process alive, unlike delay()
    }
  }

  /** Removes every pooled container and stops refilling (graceful shutdown). */
  async drain(): Promise<void> {
    this.closed = true;
    for (const [runtime, slot] of this.slots) {
      this.clearTimers(slot);
      for (const entry of slot.ready.splice(0)) this.discard(entry);
      this.slots.delete(runtime);
    }
    while (this.fills.size > 0) await Promise.allSettled([...this.fills]);
    await settleSandboxRemovals();
    await removeLeftovers(); // containers that died with a restarting daemon
  }

  /** The slot for the spec's runtime, switched to the spec's key (discarding another key's containers). */
  private slotFor(spec: SandboxSpec): Slot {
    const { key, runtime } = keyOf(spec);
    let slot = this.slots.get(runtime);
    if (slot && slot.key !== key) {
      // The spec changed (new image id, other limits): containers made for the old one are never used.
      for (const entry of slot.ready.splice(0)) this.discard(entry);
      slot.key = key;
      slot.spec = spec;
      slot.failures = 0;
    }
    if (!slot) {
      slot = { key, spec, ready: [], filling: false, failures: 0, retryTimer: null, idleTimer: null };
      this.slots.set(runtime, slot);
    }
    this.touch(runtime, slot);
    return slot;
  }

  private touch(runtime: string, slot: Slot): void {
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    slot.idleTimer = setTimeout(() => {
      if (this.slots.get(runtime) !== slot) return;
      this.slots.delete(runtime);
      this.clearTimers(slot);
      for (const entry of slot.ready.splice(0)) this.discard(entry);
    }, this.idleMs);
    slot.idleTimer.unref();
  }

  private clearTimers(slot: Slot): void {
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    if (slot.retryTimer) clearTimeout(slot.retryTimer);
    slot.idleTimer = null;
    slot.retryTimer = null;
  }

  /** Tops the slot up in the background, one container at a time (a burst of creates would compete with the runs). */
  private fill(slot: Slot): void {
    if (slot.filling || slot.retryTimer || this.closed) return;
    slot.filling = true;
    const filling = this.fillLoop(slot).finally(() => {
      slot.filling = false;
      this.fills.delete(filling);
    });
    this.fills.add(filling);
  }

  private async fillLoop(slot: Slot): Promise<void> {
    while (!this.closed && this.isCurrent(slot) && slot.ready.filter((e) => !e.dead).length < this.size) {
      const key = slot.key;
      const uid = leaseRunUid();
      let ready: ReadyContainer;
      try {
        ready = await startContainer(this.docker, pooledContainerOptions(slot.spec, uid.uid), { uid: uid.uid, releaseUid: uid.release, pooled: true });
      } catch {
        // Daemon away or image gone: runs go cold meanwhile (and say why if they cannot); retry later.
        this.retryLater(slot);
        return;
      }
      this.counts.created++;
      // Handed out only once its libraries are imported: a run never waits for, nor pays its time
      // limit for, the import.
      const warm = await Promise.race([ready.warmed.then(() => true), ready.exited.then(() => false, () => false), delay(WARM_TIMEOUT_MS).then(() => false)]);
      if (!warm) {
        this.counts.discarded++;
        void ready.dispose();
        this.retryLater(slot);
        return;
      }
      slot.failures = 0;
      const entry: Entry = { ready, key, dead: false, createdAt: performance.now() };
      if (this.closed || !this.isCurrent(slot) || slot.key !== key) {
        this.discard(entry); // made for a key that is no longer wanted; the loop goes on for the current one
        continue;
      }
      // A container that exits while it waits (killed, daemon restarted) is dropped and replaced.
      const onDeath = () => {
        entry.dead = true;
        const index = slot.ready.indexOf(entry);
        if (index < 0) return; // handed out: its run deals with it
        slot.ready.splice(index, 1);
        this.discard(entry);
        if (this.isCurrent(slot)) this.fill(slot);
      };
      ready.exited.then(onDeath, onDeath);
      slot.ready.push(entry);
    }
  }

  /** A fill failed: runs go cold meanwhile; the slot is filled again after a growing pause. */
  private retryLater(slot: Slot): void {
    this.counts.fillFailures++;
    const wait = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** slot.failures++);
    slot.retryTimer = setTimeout(() => {
      slot.retryTimer = null;
      if (this.isCurrent(slot)) this.fill(slot);
    }, wait);
    slot.retryTimer.unref();
  }

  private isCurrent(slot: Slot): boolean {
    for (const s of this.slots.values()) if (s === slot) return true;
    return false;
  }

  private discard(entry: Entry): void {
    entry.dead = true;
    this.counts.discarded++;
    void entry.ready.dispose();
  }
}

/**
 * Docker's runc containers and gVisor's: a gVisor container is started under runsc when it is
 * pooled, so gVisor's own start-up (its sandbox kernel, about a second on this machine) is paid
 * before the run, not by it.
 */
function pooledIsolation(spec: SandboxSpec): boolean {
  return spec.isolation === "container" || spec.isolation === "gvisor";
}

/** The pool key: the create options without the per-run uid. */
export function poolKey(options: Docker.ContainerCreateOptions): string {
  const group = (options.User ?? "").split(":")[1] ?? "";
  return JSON.stringify({ ...options, User: `*:${group}` });
}

/** The spec's pool key and the runtime that keys its slot. */
function keyOf(spec: SandboxSpec): { key: string; runtime: string } {
  const options = pooledContainerOptions(spec, 0);
  return { key: poolKey(options), runtime: options.HostConfig?.Runtime ?? "default" };
}
