import type { DbTx } from "@/lib/db/client";
import { findScopedAction, type ActionScope } from "@/lib/api/load-action-view";
import type { z } from "zod";
import type { DecisionWaitResponseSchema } from "@/lib/api/schemas";

type DecisionWait = z.infer<typeof DecisionWaitResponseSchema>;

/** How often the long-poll re-reads the action: one indexed single-row query per tick. */
export const DECISION_POLL_MS = 400;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Waits until the action is no longer pending (decided, expired by the database clock, cancelled,
 * invalidated), at most `timeoutSeconds`, and stops early when the client goes away.
 */
export async function waitForDecision(
  db: DbTx,
  scope: ActionScope,
  options: { timeoutSeconds: number; signal?: AbortSignal; pollMs?: number },
): Promise<DecisionWait> {
  const deadline = Date.now() + options.timeoutSeconds * 1000;
  const pollMs = options.pollMs ?? DECISION_POLL_MS;
  let action = await findScopedAction(db, scope);
  while (action.state === "pending" && Date.now() < deadline && !options.signal?.aborted) {
    await sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())), options.signal);
    if (options.signal?.aborted) break;
    action = await findScopedAction(db, scope);
  }
  // State, revision and hash from one read: an edit between two reads would pair "approved"
  // (revision n) with revision n+1's hash.
  return {
    id: action.id,
    state: action.state,
    decided: action.state !== "pending",
    revision: action.currentRevision,
    payloadHash: action.payloadHash,
    reason: action.expired ? "The approval window closed before a decision." : action.statusReason,
    expiresAt: action.expiresAt?.toISOString() ?? null,
  };
}
