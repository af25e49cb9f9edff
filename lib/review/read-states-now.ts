import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";
import type { Queryable } from "@/lib/db/sql";
import { runCompute } from "@/lib/compute/compute-pool";
import { compareStatesTask } from "@/lib/approvals/compute";
import type { StateCompareInput } from "@/lib/approvals/compute-tasks";
import { goneReason, readLiveStates } from "@/lib/approvals/read-live-state";
import { snapshotHash } from "@/lib/approvals/snapshot-hash";
import { isAppError } from "@/lib/errors";
import type { StateNow } from "@/lib/review/action-detail";

export type StateRead = { tool: string; args: JsonObject; atRequest: { data: JsonValue; hash: string } | null };

/** How long comparing a page's states with their request snapshots (hashes and diffs) may run on a compute thread. */
export const STATE_COMPARE_BUDGET_MS = 1_500;

const TOO_LARGE = "The state now is too large to compare with the snapshot taken at request in time; it is compared again before the action runs.";

/** A hash no state has: what "no snapshot at request" is compared as, exactly as the vote statement does. */
const ABSENT = snapshotHash(null);

/**
 * The states many revisions rest on, read now through the reader the vote and the execution use
 * (read-live-state.ts, unlocked here) and compared with their request snapshots by the vote's rule:
 * the live state's hash against the request snapshot's (no snapshot: the hash of null). So the
 * verdict shown (state-verdict.ts) is the vote's. Also each effect's "before" from the state now.
 * A bounded number of reads whatever the number of revisions; the hashing and diffing run on the
 * compute pool as one task. Null reads (no revision to read) answer "none".
 */
export async function readStatesNow(q: Queryable, tenantId: string, reads: Array<StateRead | null>): Promise<StateNow[]> {
  const out: StateNow[] = reads.map(() => ({ state: "none" }));
  const wanted = reads.flatMap((read, index) => (read ? [{ read, index }] : []));
  const live = await readLiveStates(q, tenantId, wanted.map(({ read }) => read));
  const compared: Array<{ index: number; now: JsonObject | null; gone: string | null; effect: LiveEffect; input: StateCompareInput }> = [];
  wanted.forEach(({ read, index }, i) => {
    const { tool, state } = live[i];
    if (state instanceof Error) {
      out[index] = unreadable(state);
      return;
    }
    // Rests on nothing, then and now: nothing to show.
    if (state === null && read.atRequest === null) return;
    const gone = goneReason(state);
    compared.push({
      index, now: state, gone, effect: gone || !tool ? NO_EFFECT : effectOf(() => tool.preview(read.args, state)),
      input: { atRequest: read.atRequest?.data ?? null, atRequestHash: read.atRequest?.hash ?? ABSENT, now: state },
    });
  });
  if (compared.length === 0) return out;
  const results = await compareOffThread(compared.map((c) => c.input));
  compared.forEach((c, i) => {
    const result = results?.[i];
    if (!result) out[c.index] = { state: "unreadable", message: TOO_LARGE };
    else if (c.gone) out[c.index] = { state: "unreadable", message: c.gone, gone: { changes: result.changes ?? [] } };
    else if (result.changes) out[c.index] = { state: "changed", data: c.now, hash: result.hash, changes: result.changes, ...c.effect };
    else out[c.index] = { state: "unchanged", data: c.now, hash: result.hash, ...c.effect };
  });
  return out;
}

type LiveEffect = { effectNow: JsonObject | null; effectAfterNow: JsonObject | null };
const NO_EFFECT: LiveEffect = { effectNow: null, effectAfterNow: null };

/**
 * The effect computed from the state now, "before" and "after" alike (so "After" is what the effect
 * would leave if it ran now); nulls when it cannot be computed (the verdict does not rest on it).
 */
function effectOf(preview: () => { before: JsonObject | null; after: JsonObject | null }): LiveEffect {
  try {
    const { before, after } = preview();
    return { effectNow: before, effectAfterNow: after };
  } catch {
    return NO_EFFECT;
  }
}

function unreadable(error: unknown): StateNow {
  return { state: "unreadable", message: isAppError(error) ? error.message : "The current state could not be read." };
}

/** Null when the comparison exceeded its budget (or the pool is too busy to take it). */
async function compareOffThread(items: StateCompareInput[]) {
  try {
    return await runCompute(compareStatesTask, items, { what: "state comparison", budgetMs: STATE_COMPARE_BUDGET_MS });
  } catch (error) {
    if (isAppError(error) && (error.code === "too_complex" || error.code === "busy")) return null;
    throw error;
  }
}
