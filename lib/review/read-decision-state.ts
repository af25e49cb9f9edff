import type { Db } from "@/lib/db/client";
import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";
import { toolArgsOf } from "@/lib/approvals/action-revision";
import { listedChanges, type FieldChange } from "@/lib/approvals/payload-diff";
import { readStatesNow } from "@/lib/review/read-states-now";
import { changesSinceRequest, stateVerdict } from "@/lib/review/state-verdict";

/**
 * What an open decision (the queue's dialog, the action page) needs to know to stay honest while it
 * is open: which revision is current, whether the action still waits, and whether the state the
 * revision rests on changed since request — judged as a vote to approve would judge it.
 */
export type DecisionState = {
  status: string;
  revision: number;
  payloadHash: string;
  state: "changed" | "unchanged" | "unknown";
  /** What changed (at most MAX_LISTED fields; `moreChanges` counts the rest). */
  changes: FieldChange[];
  moreChanges: number;
};

/**
 * One action's decision state for this tenant, read now without locks (one read of the action, the
 * state through the one live-state reader); null when there is no such action in this tenant.
 * Read-only: polled by open decisions at most once a second each.
 */
export async function readDecisionState(db: Db, tenantId: string, actionId: string): Promise<DecisionState | null> {
  const action = await db.action.findFirst({
    where: { id: actionId, tenantId },
    select: {
      status: true, tool: true, kind: true, currentRevision: true, payloadHash: true,
      revisions: {
        where: { status: "current" },
        select: { args: true, code: true, language: true, snapshots: { where: { phase: "request" }, select: { data: true, hash: true }, take: 1 } },
      },
    },
  });
  if (!action) return null;
  const base = { status: action.status, revision: action.currentRevision, payloadHash: action.payloadHash, changes: [], moreChanges: 0 };
  const revision = action.revisions[0];
  if (action.status !== "pending" || !revision) return { ...base, state: "unknown" };
  const atRequest = revision.snapshots[0];
  const args = toolArgsOf({ kind: action.kind, args: revision.args as JsonObject | null, code: revision.code, language: revision.language });
  const [now] = await readStatesNow(db, tenantId, [
    { tool: action.tool, args, atRequest: atRequest ? { data: atRequest.data as JsonValue, hash: atRequest.hash } : null },
  ]);
  const changes = changesSinceRequest(now);
  const { listed, more } = changes ? listedChanges(changes) : { listed: [], more: 0 };
  return { ...base, state: stateVerdict(now), changes: listed, moreChanges: more };
}
