import type { JsonObject } from "@/lib/canonical/json-value";
import type { SqlClient } from "@/lib/db/sql";
import { isAppError } from "@/lib/errors";
import type { ToolDefinition } from "@/lib/tools/tool";

/**
 * The state an action's decision rests on, read again now with the tool's rows locked until the
 * transaction ends — the re-read both the vote (decide-action.ts) and the execution claim
 * (execute-action.ts) compare with the request snapshot, each in its own statement. State that no
 * longer exists (the invoice is gone) reads as `{ missing }`, which never equals a snapshot; a
 * tool this build no longer has reads as no state (null).
 */
export async function readLiveState(
  tx: SqlClient,
  input: { tenantId: string; tool: ToolDefinition | null | undefined; args: JsonObject },
): Promise<JsonObject | null> {
  if (!input.tool) return null;
  try {
    return await input.tool.snapshot({ q: tx, tenantId: input.tenantId, lock: true }, input.args);
  } catch (error) {
    if (!isAppError(error) || error.code !== "not_found") throw error;
    return { missing: error.message };
  }
}
