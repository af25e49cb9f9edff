import { runCompute } from "@/lib/compute/compute-pool";
import type { DbTx } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { PolicyDecision } from "./evaluate-policy";
import { recordedPolicyInputs } from "./recorded-policy-inputs";
import type { RuleTrace } from "./trace-policy";
import { validDraftPolicy } from "./valid-draft-policy";

export const DRY_RUN_MAX = 200;

export type DryRunRow = {
  actionId: string;
  tool: string;
  summary: string;
  createdAt: string;
  recorded: { effect: string; ruleId: string | null; policyVersion: number };
  draft: Pick<PolicyDecision, "effect" | "ruleId" | "reason" | "quorum">;
  changed: boolean;
  rules: RuleTrace[];
};

/**
 * How the tenant's last `limit` actions (or one named action) would have been decided under a
 * draft policy, beside what was decided when they were proposed. Nothing is written; the draft's
 * conditions run over the recorded arguments on the compute pool, off the request thread.
 */
export async function dryRunPolicy(
  db: DbTx,
  input: { tenantId: string; document: unknown; limit: number; actionId?: string },
): Promise<{ rows: DryRunRow[]; changed: number }> {
  const policy = await validDraftPolicy(db, input.tenantId, input.document);
  const recorded = await recordedPolicyInputs(db, { tenantId: input.tenantId, limit: Math.max(1, Math.min(input.limit, DRY_RUN_MAX)), actionId: input.actionId });
  if (input.actionId && recorded.length === 0) throw new AppError("not_found", "That action was not found in this organisation.", 404);
  const traces = recorded.length
    ? await runCompute("dryRunPolicy", { policyJson: JSON.stringify(policy), inputs: recorded.map((r) => r.input) }, { what: "dry run" })
    : [];
  const rows = recorded.map((r, i): DryRunRow => {
    const { decision, rules } = traces[i] ?? { decision: null, rules: [] };
    const draft = decision
      ? { effect: decision.effect, ruleId: decision.ruleId, reason: decision.reason, quorum: decision.quorum }
      : { effect: "deny" as const, ruleId: null, reason: "not evaluated", quorum: 0 };
    return {
      actionId: r.actionId, tool: r.tool, summary: r.summary, createdAt: r.createdAt.toISOString(), recorded: r.recorded,
      draft, changed: draft.effect !== r.recorded.effect, rules,
    };
  });
  return { rows, changed: rows.filter((r) => r.changed).length };
}
