import { randomInt } from "node:crypto";

// The kernel counts RLIMIT_NPROC per uid across the whole host, so sandboxes sharing one uid share
// one process allowance: a run holding its limit would leave every other run (any tenant, any
// console on the host) unable to fork. Each run therefore gets a uid of its own from a reserved
// range far above regular, system and common subordinate (user-namespace) ids. Unique among this
// process's concurrent runs; across processes on one host a clash is one in 16 million per pair.
export const RUN_UID_BASE = 2_000_000_000;
export const RUN_UID_COUNT = 1 << 24;

const inUse = new Set<number>();

/** A uid for one run; `release` when its processes are gone. */
export function leaseRunUid(): { uid: number; release: () => void } {
  let uid: number;
  do uid = RUN_UID_BASE + randomInt(RUN_UID_COUNT);
  while (inUse.has(uid));
  inUse.add(uid);
  let released = false;
  return {
    uid,
    release: () => {
      if (released) return;
      released = true;
      inUse.delete(uid);
    },
  };
}
