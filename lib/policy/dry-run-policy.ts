import { runCompute } from "@/lib/compute/compute-pool";
import type { DbTx } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { PolicyDecision } from "./evaluate-policy";
import { readRecordedRevisions } from "@/lib/db/statements/read-recorded-revisions";
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
 * draft policy, beside what was decided when they were proposed. Nothing is written. The recorded
 * arguments and snapshots are read as text and parsed, with the draft's conditions run over them,
 * on the compute pool: up to 200 of them, each up to the body limit, never on the request thread.
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
  const traces = recorded.length
    ? await runCompute("replayRecordedPolicy", { policyJson: JSON.stringify(policy), tenantDomains: tenant.domains, revisions: recorded }, { what: "dry run" })
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
