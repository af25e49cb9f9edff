/**
 * How fast requests enter Next.js: at most `perTurn` are started per turn of the event loop, the
 * rest wait for the next turns (each turn is a setImmediate, so the loop polls for I/O between
 * two batches).
 *
 * Next.js does most of a request's work in the callback its bytes arrive in. With 64 agents'
 * requests arriving together, one turn ran 64 of them back to back, and anything that arrived
 * meanwhile (a health probe, a reviewer's click, a database reply another request waits for)
 * waited the whole batch: /api/health's p99 was 0.4–2 s under the trivial route's load. Started a
 * few per turn, the same work is done (throughput on that route rose from ~780 to ~1,400 req/s in
 * one run, with fewer requests contending at once) and what arrives is looked at within a turn.
 * bench:api measures it; docs/BENCHMARKS.md has the numbers.
 *
 * Requests wait in two lanes, each in arrival order: people's (pages, their assets, sign-in, votes,
 * the stop button) and agents' (the agent API). People's go first, so a reviewer — above all one
 * reaching for the stop button — is not queued behind an agent flood; agents keep `agentShare` of
 * every turn's starts while people's requests wait, so neither lane can hold the other off. Each
 * lane has its own limit: agents filling theirs get 503s, people do not.
 */
export type Lane = "people" | "agents";

export type Admission = {
  /** Queues `start` in `lane`; false, queuing nothing, when `maxWaiting` requests already wait there. */
  admit(lane: Lane, start: () => void): boolean;
  /** Requests waiting, both lanes together. */
  readonly waiting: number;
};

export type AdmissionLimits = {
  perTurn: number;
  /** Of each turn's starts, how many agents' requests get while people's wait too (1 ≤ agentShare < perTurn). */
  agentShare: number;
  maxWaiting: Record<Lane, number>;
};

export function createAdmission({ perTurn, agentShare, maxWaiting }: AdmissionLimits): Admission {
  const whole = (n: number) => Number.isInteger(n) && n > 0;
  if (!(whole(perTurn) && whole(agentShare) && agentShare < perTurn && whole(maxWaiting.people) && whole(maxWaiting.agents))) {
    throw new Error(
      `Admission needs positive whole numbers, agentShare below perTurn (perTurn ${perTurn}, agentShare ${agentShare}, maxWaiting ${maxWaiting.people}/${maxWaiting.agents}).`,
    );
  }
  const lanes: Record<Lane, Array<() => void>> = { people: [], agents: [] };
  let scheduled = false;
  const schedule = () => {
    if (scheduled || lanes.people.length + lanes.agents.length === 0) return;
    scheduled = true;
    setImmediate(release);
  };
  const release = () => {
    scheduled = false;
    const agentsFirst = lanes.agents.splice(0, lanes.people.length > 0 ? agentShare : 0);
    const people = lanes.people.splice(0, perTurn - agentsFirst.length);
    const agents = lanes.agents.splice(0, perTurn - agentsFirst.length - people.length);
    for (const start of [...people, ...agentsFirst, ...agents]) {
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
    admit(lane, start) {
      if (lanes[lane].length >= maxWaiting[lane]) return false;
      lanes[lane].push(start);
      schedule();
      return true;
    },
    get waiting() {
      return lanes.people.length + lanes.agents.length;
    },
  };
}
