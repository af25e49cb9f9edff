import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Which work goes first when every database connection (lib/db/sql.ts) or compute thread
 * (lib/compute/compute-pool.ts) is busy. An approved action's way to its execution (the TOCTOU
 * re-read, the re-proposal's checks, the claim, the effect and its record) runs `urgently`: under
 * load it goes ahead of new proposals and votes, so an approval does not wait behind work that
 * arrived after it, and the window in which the state it rests on can change — with the action's
 * lock and the stop button's gate held — stays short. So does the rest of what a vote, an edit or
 * a re-read does once its transaction began (it will hold the action's lock, and the state's rows,
 * while it hashes and judges). Urgent work cannot starve the rest: executions come from approvals
 * and proposals, and votes, edits and re-reads from people, so while ordinary work waits no flood
 * of urgent work arrives. Shared by every copy of this module (Next.js may bundle it more than once).
 */
const URGENCY = Symbol.for("countersign.sqlUrgency");
const urgency: AsyncLocalStorage<boolean> = ((globalThis as { [URGENCY]?: AsyncLocalStorage<boolean> })[URGENCY] ??=
  new AsyncLocalStorage<boolean>());

/** Runs `fn` with its statements and compute tasks ahead of others waiting for a connection or a thread. */
export function urgently<T>(fn: () => Promise<T>): Promise<T> {
  return urgency.run(true, fn);
}

/** Runs `fn` at ordinary priority, even when called from urgent work (bookkeeping it spawns). */
export function notUrgently<T>(fn: () => T): T {
  return urgency.run(false, fn);
}

/** Whether the caller runs inside `urgently` (and not inside a `notUrgently` within it). */
export function isUrgent(): boolean {
  return urgency.getStore() === true;
}
