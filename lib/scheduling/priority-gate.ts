/**
 * A fixed number of slots handed out first in, first out, urgent waiters first: the database's
 * connections and the compute pool's threads (docs/DESIGN.md, "No input holds the request thread").
 */
export class PriorityGate {
  private free: number;
  private readonly urgent: Array<() => void> = [];
  private readonly ordinary: Array<() => void> = [];

  constructor(size: number) {
    this.free = size;
  }

  /** How many are waiting for a slot. */
  get waiting(): number {
    return this.urgent.length + this.ordinary.length;
  }

  /** How many a new waiter of this priority would wait behind: urgent ones wait only behind urgent ones. */
  waitingAhead(urgent: boolean): number {
    return urgent ? this.urgent.length : this.waiting;
  }

  /** Takes a free slot if there is one (no waiting): true when it did. */
  tryAcquire(): boolean {
    if (this.free === 0) return false;
    this.free--;
    return true;
  }

  /**
   * Undefined when a slot was free (taken at once), else a promise resolved when one is handed over;
   * an aborted waiter leaves the queue and the promise rejects with the signal's reason.
   */
  acquire(urgent: boolean, signal?: AbortSignal): Promise<void> | undefined {
    if (this.free > 0) {
      this.free--;
      return undefined;
    }
    const queue = urgent ? this.urgent : this.ordinary;
    return new Promise<void>((resolve, reject) => {
      const waiter = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        const at = queue.indexOf(waiter);
        if (at >= 0) queue.splice(at, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      queue.push(waiter);
    });
  }

  release(): void {
    const next = this.urgent.shift() ?? this.ordinary.shift();
    if (next) next();
    else this.free++;
  }
}
