import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Which work goes first when every database connection or compute thread is busy: an approved
 * action's way to its execution, and a vote's, edit's or re-read's work once its transaction began,
 * run `urgently` (why, and why it cannot starve the rest: docs/DESIGN.md, "No input holds the
 * request thread"). Shared by every copy of this module (Next.js may bundle it more than once).
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
