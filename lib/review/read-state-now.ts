import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";
import type { Queryable } from "@/lib/db/sql";
import { diffFields } from "@/lib/approvals/payload-diff";
import { snapshotHash } from "@/lib/approvals/snapshot-hash";
import { isAppError } from "@/lib/errors";
import { findTenantTool } from "@/lib/tools/tenant-tools";
import type { StateNow } from "@/lib/review/action-detail";

/**
 * The state a revision rests on, read again now and compared with the snapshot taken at request
 * (by hash, as the execution's re-read compares it), with the effect's "before" as it would be
 * computed from the state now. One read of the tool's own rows; nothing is locked.
 */
export async function readStateNow(
  q: Queryable,
  input: { tenantId: string; tool: string; args: JsonObject; atRequest: { data: JsonValue; hash: string } | null },
): Promise<StateNow> {
  const tool = await findTenantTool(q, input.tenantId, input.tool);
  if (!tool || !input.atRequest) return { state: "none" };
  try {
    const now = await tool.snapshot({ q, tenantId: input.tenantId }, input.args);
    const hash = snapshotHash(now);
    const effectNow = tool.preview(input.args, now).before;
    if (hash === input.atRequest.hash) return { state: "unchanged", data: now, hash, effectNow };
    const before = input.atRequest.data && typeof input.atRequest.data === "object" && !Array.isArray(input.atRequest.data) ? input.atRequest.data : null;
    return { state: "changed", data: now, hash, changes: diffFields(before, now), effectNow };
  } catch (error) {
    return { state: "unreadable", message: isAppError(error) ? error.message : "The current state could not be read." };
  }
}
