import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";
import type { Queryable } from "@/lib/db/sql";
import { readStatesNow } from "@/lib/review/read-states-now";
import type { StateNow } from "@/lib/review/action-detail";

/**
 * The state a revision rests on, read again now and compared with the snapshot taken at request
 * (by hash, as the execution's re-read compares it), with the effect's "before" as it would be
 * computed from the state now. One read of the tool's own rows; the comparison runs on the
 * compute pool; nothing is locked.
 */
export async function readStateNow(
  q: Queryable,
  input: { tenantId: string; tool: string; args: JsonObject; atRequest: { data: JsonValue; hash: string } | null },
): Promise<StateNow> {
  const [state] = await readStatesNow(q, input.tenantId, [input]);
  return state;
}
