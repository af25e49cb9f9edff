import { runCompute } from "@/lib/compute/compute-pool";
import { resultTextsTask } from "@/lib/review/compute";
import { isAppError } from "@/lib/errors";
import type { ResultText, UnpreparedResult } from "@/lib/review/result-text";

/**
 * Stored execution results (jsonb text, by execution id) as the action page shows them, prepared
 * on the compute pool as one task: pretty-printing grows with the result, which may be megabytes.
 * Past the pool's budget, or when it is too busy to take the task, each is `UnpreparedResult`.
 */
export async function prepareResultTexts(stored: Array<{ id: string; json: string }>): Promise<Map<string, ResultText | UnpreparedResult>> {
  if (stored.length === 0) return new Map();
  try {
    // A reviewer is waiting for the page, as for its revealed text (reveal-off-thread.ts).
    const texts = await runCompute(resultTextsTask, stored.map((s) => s.json), { what: "execution result", urgent: true });
    return new Map(stored.map((s, i) => [s.id, texts[i]]));
  } catch (error) {
    if (isAppError(error) && (error.code === "too_complex" || error.code === "busy")) {
      return new Map(stored.map((s) => [s.id, { unprepared: true, characters: s.json.length }]));
    }
    throw error;
  }
}
