import { runCompute } from "@/lib/compute/compute-pool";
import { replayRecordedPolicyTask } from "@/lib/policy/compute";
import type { DbTx } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { PolicyDecision } from "./evaluate-policy";
import { readRecordedRevisions, type RecordedRevision } from "@/lib/db/statements/actions/read-recorded-revisions";
import type { RecordedRevisionText } from "./recorded-policy-inputs";
import type { RuleTrace } from "./trace-policy";
import { validDraftPolicy } from "./valid-draft-policy";
import type { BudgetTotalsInput } from "./policy-budgets";
import { replayedBudgetTotals } from "@/lib/approvals/budgeted-proposals";

export const DRY_RUN_MAX = 200;
const REPLAY_CHUNK = 50;

/** What of a recorded revision crosses to the compute pool: the policy input's parts, its JSON still as text. */
const policyInputText = (r: RecordedRevision, budgets: BudgetTotalsInput | undefined): RecordedRevisionText => ({
  tool: r.tool, kind: r.kind, argsText: r.argsText, code: r.code, language: r.language, riskLevel: r.riskLevel,
  riskTagsText: r.riskTagsText, snapshotText: r.snapshotText, requesterRoles: r.requesterRoles, ...(budgets ? { budgets } : {}),
});

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
 * How the tenant's last `limit` actions (or one) would fare under a draft policy, beside what was
 * decided. Writes nothing. Up to 200 recorded payloads are parsed and evaluated on the compute
 * pool, never on the request thread.
 */
export async function dryRunPolicy(
  db: DbTx,
  input: { tenantId: string; document: unknown; limit: number; actionId?: string },
): Promise<{ rows: DryRunRow[]; changed: number }> {
  const policy = await validDraftPolicy(db, input.tenantId, input.document);
  const [recorded, tenant] = await Promise.all([
    readRecordedRevisions(db, { tenantId: input.tenantId, limit: Math.max(1, Math.min(input.limit, DRY_RUN_MAX)), actionId: input.actionId }),
    db.tenant.findUniqueOrThrow({ where: { id: input.tenantId }, select: { domains: true } }),
  ]);
  if (input.actionId && recorded.length === 0) throw new AppError("not_found", "That action was not found in this organisation.", 404);
  // In tasks of REPLAY_CHUNK revisions, each with its own budget: one task of 200 revisions of up
  // to the body limit each could pass the budget (or a thread's heap) where a few dozen do not.
  const policyJson = JSON.stringify(policy);
  // A draft that reads budgets sees, for each call, the calls of its scope before it (replayedBudgetTotals).
  const budgets = await replayedBudgetTotals(db, {
    policy,
    calls: recorded.map((r) => ({ party: { tenantId: input.tenantId, apiKeyId: r.requesterApiKeyId, userId: r.requesterUserId, taskId: r.taskId }, tool: r.tool, createdAt: r.createdAt })),
  });
  const withBudgets = recorded.map((r, i) => policyInputText(r, budgets[i]));
  const chunks = Array.from({ length: Math.ceil(withBudgets.length / REPLAY_CHUNK) }, (_, i) => withBudgets.slice(i * REPLAY_CHUNK, (i + 1) * REPLAY_CHUNK));
  const traces = (await Promise.all(chunks.map((chunk) => runCompute(replayRecordedPolicyTask, {
    policyJson, tenantDomains: tenant.domains, revisions: chunk,
  }, { what: "dry run" })))).flat();
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
