import { runCompute } from "@/lib/compute/compute-pool";
import { diffRevisionTask } from "@/lib/approvals/compute";
import type { RevisionDiffInput } from "@/lib/approvals/compute-tasks";
import { codeReplacedWhole, diffFields, type PayloadDiff } from "@/lib/approvals/payload-diff";
import { isAppError } from "@/lib/errors";

/**
 * How long a revision's diff may run on a compute thread. Past it (or when the pool is too busy to
 * take it) the reviewer sees both versions whole, and says so; past the diff library's own bound
 * of one second it already shows a text or the code whole.
 */
export const DIFF_BUDGET_MS = 1_500;

export const DIFF_UNAVAILABLE = "The diff was too large to compute in time, so both versions are shown whole.";

/**
 * The diff a new revision shows against the one it replaces, computed on the compute pool (its
 * cost grows with the texts: a word diff of two long near-identical texts, a line diff of long
 * code). Never throws for the size of the input: a diff that exceeds its budget becomes both
 * versions whole, field by field (compared whole, not word by word) and the code replaced whole,
 * with `unavailable` saying why.
 */
export async function computeRevisionDiff(input: RevisionDiffInput, options: { budgetMs?: number } = {}): Promise<Omit<PayloadDiff, "removedTags">> {
  try {
    return await runCompute(diffRevisionTask, input, { what: "diff", budgetMs: options.budgetMs ?? DIFF_BUDGET_MS });
  } catch (error) {
    if (!isAppError(error) || (error.code !== "too_complex" && error.code !== "busy")) throw error;
    return {
      // Compared whole (JSON text against JSON text): linear, with no diff algorithm.
      fields: diffFields(input.before, input.after, input.prefix),
      ...(input.code ? { code: codeReplacedWhole(input.code.before, input.code.after) } : {}),
      unavailable: DIFF_UNAVAILABLE,
    };
  }
}
