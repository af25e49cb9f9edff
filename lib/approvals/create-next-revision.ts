import { randomUUID } from "node:crypto";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { SqlClient } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditBodyOf, type AuditActor } from "@/lib/audit/append-audit-event";
import { AppError, describeInvalid, isAppError } from "@/lib/errors";
import { checkToolArgs } from "@/lib/tools/parse-tool-args";
import { RISK_RANK, type RiskTag } from "@/lib/risk/risk-tag";
import type { ToolDefinition } from "@/lib/tools/tool";
import type { LockedAction } from "@/lib/db/statements/actions/lock-action";
import { writeNextRevision, type NextRevisionWritten } from "@/lib/db/statements/actions/write-next-revision";
import { readRequesterRoles } from "@/lib/db/statements/actions/requester-roles";
import { payloadColumns, toolArgsOf } from "@/lib/approvals/action-revision";
import { loadTenantPolicy } from "@/lib/approvals/active-policy";
import { assessPayload } from "@/lib/approvals/assess-payload";
import { removedTags, type PayloadDiff } from "@/lib/approvals/payload-diff";
import { computeRevisionDiff } from "@/lib/approvals/compute-revision-diff";
import { snapshotHash } from "@/lib/approvals/snapshot-hash";
import { budgetLines, readLockedBudgets } from "@/lib/approvals/budgeted-proposals";
import { policyBudgetTerms } from "@/lib/policy/evaluate-policy";

export type NextRevisionInput = {
  /** The action as `lockAction` read it; the caller's transaction holds its lock. */
  action: LockedAction;
  tool: ToolDefinition;
  /** Checked against the tool here (checkToolArgs), then assessed and written as checked. */
  args: unknown;
  origin: string;
  createdByUserId: string | null;
  actor: AuditActor;
  /** For state-change re-proposals: the snapshot before and after, shown as the diff. */
  snapshotChange?: { before: JsonObject | null; after: JsonObject | null };
  /** Events that come first in the same statement (e.g. the invalidation this revision answers). */
  precedingEvents?: AttestedAuditBody[];
  /**
   * A person's revision (an edit, a re-read): written only while the current revision's window is
   * still open when the revision is written, else refused as `expired` with this message. (A
   * re-proposal after a state change is the execution's answer to a claim that found the window open.)
   */
  whileOpen?: string;
  /** What a refusal of arguments the tool's schema does not take begins with (see createNextRevision). */
  invalidArgs: { message: string; status: 400 | 409 };
};

export type NextRevision = { revision: number; payloadHash: string; status: "pending" | "denied" | "approved"; expiresAt: Date | null };

function namesOf(datasets: unknown): string {
  return Array.isArray(datasets) ? datasets.join(", ") : "";
}

/**
 * createNextRevision's refusal of the arguments (`invalid_args`): thrown before it reads or writes
 * anything, so a caller's transaction may still act on it (an execution invalidates the action).
 */
export class ArgumentsRefused extends AppError {
  constructor(message: string, status: 400 | 409) {
    super("invalid_args", message, status);
  }
}

/** How long an action the policy allows outright may wait to be executed. */
export const ALLOWED_EXECUTION_WINDOW_SECONDS = 300;

/**
 * Revision n+1 of an action: the new payload is assessed afresh under the tenant's policy in force
 * (snapshot, risk, policy, hash) and needs its own approval; revision n is superseded and its
 * votes void, in one statement (write-next-revision.ts). Runs in the caller's transaction, which
 * holds the action's lock.
 */
export async function createNextRevision(tx: SqlClient, input: NextRevisionInput): Promise<NextRevision> {
  const { action } = input;
  const args = await checkedArgs(input);
  const revision = action.currentRevision + 1;
  // On the compute pool: its cost grows with the texts and the code. It does not depend on the policy.
  const changes = await revisionChanges(input, args);
  // The write refuses an assessment a policy (or domains, or the requester's roles) changed
  // meanwhile has overtaken: then the payload is assessed again under those in force.
  for (let attempt = 0; attempt < 3; attempt++) {
    const loaded = await loadTenantPolicy(tx, action.tenantId);
    if (!loaded) throw new AppError("not_found", "That organisation was not found.", 404);
    const { requesterRoles, assessment } = await assessRevision(tx, input, args, revision, loaded);
    const { decision, hash } = assessment;
    const status = decision.effect === "deny" ? "denied" : decision.effect === "allow" ? "approved" : "pending";
    const written = await writeRevision(tx, input, { args, revision, loaded, requesterRoles, assessment, changes, status });
    if (written.written) return { revision, payloadHash: hash.hash, status, expiresAt: written.expiresAt };
    throwRefusal(input, written, decision.quorum);
  }
  throw new Error(`Revision ${revision} of action ${action.id} could not be written: the tenant's policy or its requester's roles kept changing.`);
}

/**
 * The arguments as the tool takes them now. Every later revision's arguments are checked here,
 * against the tool as it is now: an upstream MCP tool's pinned schema may have changed since
 * revision 1 was checked, and a re-proposal or a re-read must not carry arguments it no longer
 * takes to a reviewer (or, under an allow rule, straight to the server). Refused before anything
 * is read or written, so the caller's transaction can still act on the refusal (an execution
 * invalidates the action).
 */
async function checkedArgs({ tool, args, invalidArgs }: NextRevisionInput): Promise<JsonObject> {
  const parsed = await checkToolArgs(tool, args).catch((error: unknown) => {
    // Arguments too costly to check are no more runnable than ones that do not fit.
    if (isAppError(error) && error.code === "too_complex") throw new ArgumentsRefused(`${invalidArgs.message}: ${error.message}`, invalidArgs.status);
    throw error;
  });
  if (!parsed.success) throw new ArgumentsRefused(`${invalidArgs.message}: ${describeInvalid(parsed.error)}`, invalidArgs.status);
  return parsed.data;
}

/** What changed from the current revision: the snapshot for a state-change re-proposal, else the payload. */
function revisionChanges({ action, tool, snapshotChange }: NextRevisionInput, args: JsonObject): Promise<RevisionChanges> {
  const isCode = tool.kind === "code";
  const previousArgs = toolArgsOf(action);
  return computeRevisionDiff({
    ...(snapshotChange
      ? { before: snapshotChange.before, after: snapshotChange.after, prefix: "snapshot", words: false }
      : {
          before: isCode ? { language: previousArgs.language, datasets: namesOf(previousArgs.datasets) } : previousArgs,
          after: isCode ? { language: args.language ?? "python", datasets: namesOf(args.datasets) } : args,
          prefix: "",
          words: true,
        }),
    code: isCode ? { before: String(previousArgs.code ?? ""), after: String(args.code ?? "") } : null,
  });
}

type RevisionChanges = Awaited<ReturnType<typeof computeRevisionDiff>>;
type LoadedPolicy = NonNullable<Awaited<ReturnType<typeof loadTenantPolicy>>>;

/** The revision assessed under `loaded`, with the requesting member's roles it was assessed with. */
async function assessRevision(tx: SqlClient, { action, tool }: NextRevisionInput, args: JsonObject, revision: number, loaded: LoadedPolicy) {
  // The policy sees the requesting member's roles as they are now, as it saw them for revision 1.
  const requesterRoles = action.requesterUserId ? await readRequesterRoles(tx, { tenantId: action.tenantId, userId: action.requesterUserId }) : null;
  // A budgeted tool's revision is judged with the totals read under the budgets' locks, held by
  // this transaction until the revision is written (its own action not counted).
  const budgetTerms = policyBudgetTerms(loaded.policy.policy, tool.name);
  const budgets = budgetTerms.length === 0 ? undefined : await readLockedBudgets(tx, {
    party: { tenantId: action.tenantId, apiKeyId: action.requesterApiKeyId, userId: action.requesterUserId, taskId: action.taskId },
    terms: budgetTerms, excludeActionId: action.id,
  });
  const assessed = await assessPayload(tx, {
    tenantId: action.tenantId, tenantDomains: loaded.tenant.domains, tool, args, requesterRoles: requesterRoles ?? [], policy: loaded.policy, budgets,
    reason: action.reason,
    // The untrusted text the proposal was assessed against: an edit keeps the provenance and
    // injection tags of the fields it did not change.
    untrustedValues: action.untrustedValues,
    revision,
  });
  const assessment = budgets === undefined ? assessed : {
    ...assessed,
    decision: { ...assessed.decision, budgets: budgetLines(budgetTerms, budgets, assessed.decision.effect !== "deny", tool.name, args) },
  };
  return { requesterRoles, assessment };
}

type AssessedRevision = Awaited<ReturnType<typeof assessRevision>> & {
  args: JsonObject;
  revision: number;
  loaded: LoadedPolicy;
  changes: RevisionChanges;
  status: NextRevision["status"];
};

/** The one statement that writes the revision with its audit event (write-next-revision.ts). */
function writeRevision(tx: SqlClient, input: NextRevisionInput, r: AssessedRevision): Promise<NextRevisionWritten> {
  const { action, tool } = input;
  const { revision, loaded, assessment, status } = r;
  const { decision, hash } = assessment;
  const columns = payloadColumns(tool.kind, r.args, assessment.datasets);
  const diff: PayloadDiff = { ...r.changes, removedTags: removedTags(action.riskTags as unknown as RiskTag[], assessment.riskTags) };
  const revised = auditBodyOf({
    tenantId: action.tenantId, actor: input.actor, type: "action.revised", outcome: "ok",
    subject: { type: "action", id: action.id }, actionId: action.id, tool: tool.name,
    riskLevel: assessment.riskLevel, requester: action.requesterLabel, status,
    data: {
      fromRevision: action.currentRevision, revision, origin: input.origin, payloadHash: hash.hash,
      effect: decision.effect, ruleId: decision.ruleId, changedFields: diff.fields.map((f) => f.path),
      removedTags: (diff.removedTags ?? []).map((t) => (t.path ? `${t.id} (${t.path})` : t.id)),
      ...(decision.budgets ? { budgets: decision.budgets } : {}),
    },
  });
  return writeNextRevision(tx, {
    tenantId: action.tenantId, actionId: action.id, fromRevision: action.currentRevision, revisionId: randomUUID(), revision,
    requesterUserId: action.requesterUserId, requesterRoles: r.requesterRoles, ...columns, sandboxSpec: assessment.sandboxSpec, domains: loaded.tenant.domains, policyVersion: loaded.policy.version,
    policyDecision: decision as unknown as JsonObject, requiresApproval: decision.effect === "require_approval",
    quorum: Math.max(1, decision.quorum), eligibleRoles: decision.eligibleRoles,
    payloadHash: hash.hash, hashAlgorithm: hash.algorithm, hashVersion: hash.version,
    riskTags: assessment.riskTags, riskLevel: assessment.riskLevel, riskRank: RISK_RANK[assessment.riskLevel],
    preview: assessment.preview, scanFindings: assessment.scanFindings, diff: diff as unknown as JsonObject,
    origin: input.origin, createdByUserId: input.createdByUserId,
    snapshot: assessment.snapshot, snapshotHash: snapshotHash(assessment.snapshot),
    status, statusReason: decision.reason,
    ttlSeconds: decision.effect === "deny" ? null : decision.effect === "allow" ? ALLOWED_EXECUTION_WINDOW_SECONDS : decision.ttlSeconds,
    whileOpen: input.whileOpen !== undefined, events: [...(input.precedingEvents ?? []), revised],
    // The task waits on this action: a new revision the policy decided at once, or one that
    // answers an invalidation, is news for its run loop.
    wake: status !== "pending" || Boolean(input.precedingEvents?.length),
  });
}

/** Throws the refusal a person sees; returns for a refusal that means: assess again. */
function throwRefusal(input: NextRevisionInput, written: Extract<NextRevisionWritten, { written: false }>, decidedQuorum: number): void {
  if (written.refusal === "expired") throw new AppError("expired", input.whileOpen ?? "The approval window has closed.", 409);
  if (written.refusal === "too_few_reviewers") {
    const quorum = Math.max(1, decidedQuorum);
    const others = written.reviewers === 0 ? "no member other than you" : `only ${written.reviewers} member${written.reviewers === 1 ? "" : "s"} other than you`;
    throw new AppError("too_few_reviewers", `Not saved: this edit needs ${quorum} approval${quorum === 1 ? "" : "s"} and ${others} may decide it (its author may not), so it could never be approved; ask an admin to add a reviewer, or decide the action as it stands.`, 409);
  }
  if (written.refusal === "stale_revision") {
    throw new AppError("stale_revision", `The action is no longer at revision ${input.action.currentRevision}; reload it and try again.`, 409);
  }
}
