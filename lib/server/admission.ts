/**
 * How fast requests enter Next.js: at most `perTurn` are started per turn of the event loop, the
 * rest wait in arrival order for the next turns (each turn is a setImmediate, so the loop polls
 * for I/O between two batches).
 *
 * Next.js does most of a request's work in the callback its bytes arrive in. With 64 agents'
 * requests arriving together, one turn ran 64 of them back to back, and anything that arrived
 * meanwhile (a health probe, a reviewer's click, a database reply another request waits for)
 * waited the whole batch: /api/health's p99 was 0.4–2 s under the trivial route's load. Started a
 * few per turn, the same work is done (throughput on that route rose from ~780 to ~1,400 req/s in
 * one run, with fewer requests contending at once) and what arrives is looked at within a turn.
 * bench:api measures it; docs/BENCHMARKS.md has the numbers.
 */
export type Admission = {
  /** Queues `start`; false, queuing nothing, when `maxWaiting` requests already wait. */
  admit(start: () => void): boolean;
  readonly waiting: number;
};

export function createAdmission({ perTurn, maxWaiting }: { perTurn: number; maxWaiting: number }): Admission {
  if (!(Number.isInteger(perTurn) && perTurn > 0 && Number.isInteger(maxWaiting) && maxWaiting > 0)) {
    throw new Error(`Admission needs positive whole numbers (perTurn ${perTurn}, maxWaiting ${maxWaiting}).`);
  }
  const waiting: Array<() => void> = [];
  let scheduled = false;
  const schedule = () => {
    if (scheduled || waiting.length === 0) return;
    scheduled = true;
    setImmediate(release);
  };
  const release = () => {
    scheduled = false;
    for (const start of waiting.splice(0, perTurn)) {
      try {
        start();
      } catch (error) {
        // One request's failure to start must not strand the others of its batch.
        console.error(`A request failed to start: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    schedule();
  };
  return {
    admit(start) {
      if (waiting.length >= maxWaiting) return false;
      waiting.push(start);
      schedule();
      return true;
    },
    get waiting() {
      return waiting.length;
    },
  };
}
