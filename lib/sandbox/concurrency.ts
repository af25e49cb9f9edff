import { SandboxAbortedError } from "./types";
import { readEnv } from "@/lib/env";

/** A counting semaphore with a FIFO queue; waiting can be aborted. */
export class FifoLimiter {
  private active = 0;
  private readonly waiting: { grant: () => void; reject: (err: Error) => void }[] = [];

  constructor(readonly limit: number) {}

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) throw new SandboxAbortedError();
    if (this.active < this.limit && this.waiting.length === 0) {
      this.active++;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const entry = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        reject,
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new SandboxAbortedError());
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(entry);
    });
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next.grant(); // the slot passes straight to the next in line
      else this.active--;
    };
  }
}

function concurrencyFromEnv(): number {
  return readEnv("SANDBOX_CONCURRENCY") ?? 2;
}

let shared: FifoLimiter | null = null;

/** One limit for all sandbox runs in this process (env SANDBOX_CONCURRENCY, default 2). */
export function sandboxLimiter(): FifoLimiter {
  shared ??= new FifoLimiter(concurrencyFromEnv());
  return shared;
}
