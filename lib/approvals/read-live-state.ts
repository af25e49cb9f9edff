import type { JsonObject } from "@/lib/canonical/json-value";
import type { Queryable } from "@/lib/db/sql";
import { readMcpTools, type McpToolRow } from "@/lib/db/statements/mcp/read-mcp-tool";
import { isAppError } from "@/lib/errors";
import { pinnedSnapshotOf, upstreamTool } from "@/lib/mcp/upstream/upstream-tool";
import { findTool } from "@/lib/tools/registry";
import { isUpstreamToolName } from "@/lib/tools/tenant-tools";
import type { ToolDefinition } from "@/lib/tools/tool";

/**
 * The state an action rests on, read again now: what the tool's snapshot reads; `{ missing }` when
 * what the arguments name is gone (never equal to a snapshot, so approvals fail); null when the
 * tool rests on nothing or this console no longer has it. The vote, the execution claim and the
 * review pages all read it here, so the "changed since request" badge and a vote's refusal agree.
 */
export type LiveState = JsonObject | null;

/** Why the live state is gone (the `{ missing }` of a deleted record or unusable upstream tool), or null. */
export function goneReason(state: LiveState): string | null {
  return state !== null && Object.keys(state).length === 1 && typeof state.missing === "string" ? state.missing : null;
}

/** A snapshot's outcome as live state: not_found becomes `{ missing }`; any other error stays one. */
function settle(outcome: JsonObject | null | Error): LiveState | Error {
  if (isAppError(outcome) && outcome.code === "not_found") return { missing: outcome.message };
  return outcome;
}

async function attempt(read: () => Promise<JsonObject | null>): Promise<LiveState | Error> {
  try {
    return settle(await read());
  } catch (error) {
    return settle(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * One action's live state. `lock`: the vote and the execution claim hold the rows read until their
 * transaction ends, so what they compare is what the effect acts on; the review pages never lock.
 */
export async function readLiveState(
  q: Queryable,
  input: { tenantId: string; tool: ToolDefinition | null | undefined; args: JsonObject; lock: boolean },
): Promise<LiveState> {
  const { tool } = input;
  if (!tool) return null;
  const state = await attempt(() => tool.snapshot({ q, tenantId: input.tenantId, lock: input.lock }, input.args));
  if (state instanceof Error) throw state;
  return state;
}

export type LiveRead = { tool: ToolDefinition | undefined; state: LiveState | Error };

/**
 * Many actions' live states, unlocked (a review-queue page), each what `readLiveState` would answer
 * for it — or the error it would throw — in a bounded number of reads whatever their number: one
 * of the tenant's upstream tools when any is named (their rows are their state), then one per tool
 * that reads state (`snapshots`), else one per action.
 */
export async function readLiveStates(q: Queryable, tenantId: string, reads: Array<{ tool: string; args: JsonObject }>): Promise<LiveRead[]> {
  const upstream = reads.some((r) => isUpstreamToolName(r.tool))
    ? new Map((await readMcpTools(q, { tenantId })).map((row) => [row.qualifiedName, row]))
    : new Map<string, McpToolRow>();
  const tools = reads.map((r) => {
    if (!isUpstreamToolName(r.tool)) return findTool(r.tool);
    const row = upstream.get(r.tool);
    return row ? upstreamTool(row) : undefined;
  });
  const out: LiveRead[] = tools.map((tool) => ({ tool, state: null }));
  const byTool = new Map<string, number[]>();
  tools.forEach((tool, index) => {
    if (tool) byTool.set(tool.name, [...(byTool.get(tool.name) ?? []), index]);
  });
  const ctx = { q, tenantId };
  await Promise.all(
    [...byTool.values()].map(async (indexes) => {
      const tool = tools[indexes[0]]!;
      if (isUpstreamToolName(tool.name)) {
        // The rows read above are the state: no further read.
        for (const i of indexes) out[i].state = await attempt(async () => pinnedSnapshotOf(tool.name, upstream.get(tool.name)));
      } else if (tool.snapshots) {
        // A failed read leaves each of its actions unreadable, as a failed read of one would.
        const results = await tool.snapshots(ctx, indexes.map((i) => reads[i].args)).catch((error: unknown) =>
          indexes.map(() => (error instanceof Error ? error : new Error(String(error)))),
        );
        indexes.forEach((i, k) => (out[i].state = settle(results[k])));
      } else {
        await Promise.all(indexes.map(async (i) => (out[i].state = await attempt(() => tool.snapshot(ctx, reads[i].args)))));
      }
    }),
  );
  return out;
}
