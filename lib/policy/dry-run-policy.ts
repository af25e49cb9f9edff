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
import type { Policy } from "./policy-document";
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
  /**
   * The recorded decision was not the policy's: a refusal that comes first (a state check, the code
   * scan, no sandbox) denied it whatever the policy said, and denies it under the draft as well.
   */
  refusedBeforePolicy: boolean;
  draft: Pick<PolicyDecision, "effect" | "ruleId" | "reason" | "quorum">;
  /** The draft's rules decide it differently from the rules of the version it was decided under. */
  changed: boolean;
  rules: RuleTrace[];
};

type Replayed = { decision: PolicyDecision | null; rules: RuleTrace[] };

/**
 * Each recorded revision decided again under one policy, in chunks on the compute pool. A policy
 * that reads budgets sees, for each call, the calls of its scope before it (replayedBudgetTotals).
 */
async function replay(db: DbTx, tenantId: string, policy: Policy, tenantDomains: string[], revisions: RecordedRevision[]): Promise<Replayed[]> {
  const budgets = await replayedBudgetTotals(db, {
    policy,
    calls: revisions.map((r) => ({ party: { tenantId, apiKeyId: r.requesterApiKeyId, userId: r.requesterUserId, taskId: r.taskId }, tool: r.tool, createdAt: r.createdAt })),
  });
  const texts = revisions.map((r, i) => policyInputText(r, budgets[i]));
  const policyJson = JSON.stringify(policy);
  // In tasks of REPLAY_CHUNK revisions, each with its own budget: one task of 200 revisions of up
  // to the body limit each could pass the budget (or a thread's heap) where a few dozen do not.
  const chunks = Array.from({ length: Math.ceil(texts.length / REPLAY_CHUNK) }, (_, i) => texts.slice(i * REPLAY_CHUNK, (i + 1) * REPLAY_CHUNK));
  return (await Promise.all(chunks.map((chunk) => runCompute(replayRecordedPolicyTask, {
    policyJson, tenantDomains, revisions: chunk,
  }, { what: "dry run" })))).flat();
}

/**
 * How the tenant's last `limit` actions (or one) would fare under a draft policy, beside what was
 * decided. Writes nothing. Up to 200 recorded payloads are parsed and evaluated on the compute
 * pool, never on the request thread. "Changed" compares the draft with the rules of the version
 * each action was decided under, on the same inputs: a state-check or scan denial is not the
 * policy's decision, so an unchanged draft changes nothing.
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
  const versions = [...new Set(recorded.map((r) => r.recorded.policyVersion))];
  const documents = await db.toolPolicy.findMany({ where: { tenantId: input.tenantId, version: { in: versions } }, select: { version: true, document: true } });
  const [traces, ...thens] = await Promise.all([
    replay(db, input.tenantId, policy, tenant.domains, recorded),
    ...documents.map(async (d) => {
      const group = recorded.filter((r) => r.recorded.policyVersion === d.version);
      // A stored version today's evaluator cannot replay: compared with what was recorded, as before.
      const replayed = await replay(db, input.tenantId, d.document as Policy, tenant.domains, group).catch(() => null);
      return new Map(replayed ? group.map((r, i) => [r.actionId, replayed[i]?.decision ?? null]) : []);
    }),
  ]);
  const then = new Map(thens.flatMap((m) => [...m]));
  const rows = recorded.map((r, i): DryRunRow => {
    const { decision, rules } = traces[i] ?? { decision: null, rules: [] };
    const draft = decision
      ? { effect: decision.effect, ruleId: decision.ruleId, reason: decision.reason, quorum: decision.quorum }
      : { effect: "deny" as const, ruleId: null, reason: "not evaluated", quorum: 0 };
    const policyThen = then.get(r.actionId) ?? null;
    const refusedBeforePolicy = policyThen !== null && r.recorded.effect === "deny" && r.recorded.ruleId === null && policyThen.effect !== "deny";
    return {
      actionId: r.actionId, tool: r.tool, summary: r.summary, createdAt: r.createdAt.toISOString(), recorded: r.recorded, refusedBeforePolicy,
      draft, changed: draft.effect !== (policyThen?.effect ?? r.recorded.effect), rules,
    };
  });
  return { rows, changed: rows.filter((r) => r.changed).length };
}
