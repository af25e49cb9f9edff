/**
 * How requests enter Next.js: at most `perTurn` started per turn of the event loop (a setImmediate
 * each, so I/O is polled between batches), in two lanes — people's first, agents keeping
 * `agentShare` of every turn — each with its own limit. Why: docs/DESIGN.md, "People and the health
 * probe are not queued behind agents".
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
