import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { readBulkCandidates } from "@/lib/db/statements/actions/read-bulk-candidates";
import { bulkRefusal } from "@/lib/review/bulk-eligibility";
import { sortedTags } from "@/lib/review/list-review-queue";
import { NOT_INSPECTABLE_TAG } from "@/lib/risk/deceptive-text";

/**
 * Re-reads the actions of a bulk decision in this tenant and refuses the whole batch unless they
 * may be decided together (bulk-eligibility.ts): all found, low risk, of one step, inspectable.
 */
export async function checkBulkBatch(db: Db, input: { tenantId: string; ids: string[] }): Promise<void> {
  const rows = await readBulkCandidates(db, input);
  if (new Set(rows.map((row) => row.id)).size !== input.ids.length) {
    throw new AppError("not_found", "Some of these actions were not found in this organisation.", 404);
  }
  const byId = new Map<string, { riskLevel: string; stepKey: string | null; notInspectable: boolean }>();
  for (const row of rows) {
    const notInspectable = sortedTags(row.riskTags).some((t) => t.id === NOT_INSPECTABLE_TAG);
    byId.set(row.id, { riskLevel: row.riskLevel, stepKey: row.stepKey, notInspectable: (byId.get(row.id)?.notInspectable ?? false) || notInspectable });
  }
  const refusal = bulkRefusal([...byId.values()]);
  if (refusal) throw new AppError("bulk_not_allowed", refusal, 400);
}
