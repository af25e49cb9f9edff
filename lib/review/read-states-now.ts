import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";
import type { Queryable } from "@/lib/db/sql";
import { readMcpTools, type McpToolRow } from "@/lib/db/statements/mcp/read-mcp-tool";
import { runCompute } from "@/lib/compute/compute-pool";
import { compareStatesTask } from "@/lib/approvals/compute";
import type { StateCompareInput } from "@/lib/approvals/compute-tasks";
import { isAppError } from "@/lib/errors";
import { pinnedSnapshotOf, upstreamTool } from "@/lib/mcp/upstream/upstream-tool";
import { findTool } from "@/lib/tools/registry";
import { isUpstreamToolName } from "@/lib/tools/tenant-tools";
import type { ToolDefinition } from "@/lib/tools/tool";
import type { StateNow } from "@/lib/review/action-detail";

export type StateRead = { tool: string; args: JsonObject; atRequest: { data: JsonValue; hash: string } | null };

/** How long comparing a page's states with their request snapshots (hashes and diffs) may run on a compute thread. */
export const STATE_COMPARE_BUDGET_MS = 1_500;

const TOO_LARGE = "The state now is too large to compare with the snapshot taken at request in time; it is compared again before the action runs.";

type Read = { index: number; tool: ToolDefinition; args: JsonObject; atRequest: { data: JsonValue; hash: string } };
type Snapshot = { read: Read; now: JsonObject | null } | { read: Read; error: unknown };

/**
 * The states many revisions rest on, read again now and compared with their request snapshots (by
 * hash, as the execution's re-read compares them), with each effect's "before" as computed from
 * the state now: in a bounded number of reads, whatever the number of revisions — one read of the
 * tenant's upstream tools when any is named, then one per tool that reads state (tools group their
 * reads by what they read: invoices, customers, data sets). The hashing and diffing run on the
 * compute pool as one task. Nothing is locked. Same answer, item for item, as reading each alone.
 */
export async function readStatesNow(q: Queryable, tenantId: string, reads: StateRead[]): Promise<StateNow[]> {
  const out: StateNow[] = reads.map(() => ({ state: "none" }));
  const upstream = reads.some((r) => r.atRequest && isUpstreamToolName(r.tool))
    ? new Map((await readMcpTools(q, { tenantId })).map((row) => [row.qualifiedName, row]))
    : new Map<string, McpToolRow>();
  const pending: Read[] = [];
  reads.forEach((r, index) => {
    if (!r.atRequest) return;
    const row = upstream.get(r.tool);
    const tool = isUpstreamToolName(r.tool) ? (row ? upstreamTool(row) : undefined) : findTool(r.tool);
    if (tool) pending.push({ index, tool, args: r.args, atRequest: r.atRequest });
  });

  const snapshots: Snapshot[] = [];
  const byTool = new Map<string, Read[]>();
  for (const r of pending) byTool.set(r.tool.name, [...(byTool.get(r.tool.name) ?? []), r]);
  await Promise.all(
    [...byTool.values()].map(async (group) => {
      const { tool } = group[0];
      const ctx = { q, tenantId };
      if (isUpstreamToolName(tool.name)) {
        // The rows read above are the state: no further read.
        for (const read of group) snapshots.push(attempt(read, () => pinnedSnapshotOf(tool.name, upstream.get(tool.name))));
      } else if (tool.snapshots) {
        // A failed read leaves each of its rows unreadable, as a failed read of one row did.
        const results = await tool.snapshots(ctx, group.map((r) => r.args)).catch((error: unknown) =>
          group.map(() => (error instanceof Error ? error : new Error(String(error)))),
        );
        group.forEach((read, i) => {
          const result = results[i];
          snapshots.push(result instanceof Error ? { read, error: result } : { read, now: result });
        });
      } else {
        snapshots.push(
          ...(await Promise.all(group.map((read) => tool.snapshot(ctx, read.args).then((now): Snapshot => ({ read, now }), (error: unknown): Snapshot => ({ read, error }))))),
        );
      }
    }),
  );

  const read = snapshots.flatMap((s) => {
    if ("error" in s) {
      out[s.read.index] = unreadable(s.error);
      return [];
    }
    try {
      return [{ ...s, effectNow: s.read.tool.preview(s.read.args, s.now).before }];
    } catch (error) {
      out[s.read.index] = unreadable(error);
      return [];
    }
  });
  if (read.length === 0) return out;
  const compared = await compareOffThread(read.map((s) => ({ atRequest: s.read.atRequest.data, atRequestHash: s.read.atRequest.hash, now: s.now })));
  read.forEach((s, i) => {
    const c = compared?.[i];
    out[s.read.index] = !c
      ? { state: "unreadable", message: TOO_LARGE }
      : c.changes
        ? { state: "changed", data: s.now, hash: c.hash, changes: c.changes, effectNow: s.effectNow }
        : { state: "unchanged", data: s.now, hash: c.hash, effectNow: s.effectNow };
  });
  return out;
}

function attempt(read: Read, snapshot: () => JsonObject | null): Snapshot {
  try {
    return { read, now: snapshot() };
  } catch (error) {
    return { read, error };
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
