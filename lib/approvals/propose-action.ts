import { randomUUID } from "node:crypto";
import { checkToolArgs } from "@/lib/tools/parse-tool-args";
import { assertCanonicalizable } from "@/lib/canonical/assert-canonicalizable";
import type { JsonObject } from "@/lib/canonical/json-value";
import { snapshotHash } from "@/lib/approvals/snapshot-hash";
import type { Db } from "@/lib/db/client";
import { AppError, describeInvalid, isAppError, markAudited, toPublicError } from "@/lib/errors";
import { appendAuditEvent, auditBodyOf, type AuditActor } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { taskExists } from "@/lib/db/statements/tasks/task-exists";
import { writeProposal } from "@/lib/approvals/write-proposal";
import { RISK_RANK } from "@/lib/risk/risk-tag";
import { resolveTool } from "@/lib/tools/tenant-tools";
import type { ToolDefinition } from "@/lib/tools/tool";
import type { Queryable } from "@/lib/db/sql";
import { cachedTenantPolicy, forgetTenantPolicy, type TenantPolicy } from "@/lib/approvals/active-policy";
import { payloadColumns } from "@/lib/approvals/action-revision";
import { assessPayload, type Assessment } from "@/lib/approvals/assess-payload";
import { requesterAuditActor, type Requester } from "@/lib/approvals/actors";
import { executeAction, ProposalNotWritten, type ExecutionOutcome } from "@/lib/approvals/execute-action";
import { writeProposals, type GrantLeft, type ProposalGrant, type ProposalRow, type ProposalWritten } from "@/lib/db/statements/actions/write-proposals";
import { grantedJudgement, standingGrantFor, forgetSpentGrant } from "@/lib/grants/standing-grant-for";
import type { LockedAction } from "@/lib/db/statements/actions/lock-action";
import { ALLOWED_EXECUTION_WINDOW_SECONDS } from "@/lib/approvals/create-next-revision";
import { submitRequestHash } from "@/lib/approvals/submit-request-hash";
import { agentsPausedError } from "@/lib/approvals/agents-paused-error";
import { readSubmittedAction, type SubmittedActionRow } from "@/lib/db/statements/actions/read-submitted-action";
import type { Judgement } from "@/lib/approvals/judge-payload";
import { writeBudgetedProposal } from "@/lib/approvals/budgeted-proposals";
import { policyBudgetTerms, type BudgetLine } from "@/lib/policy/evaluate-policy";

export type ProposeInput = {
  tenantId: string;
  requester: Requester;
  tool: string;
  /** Tool arguments (already strictly parsed), or for code tools `{ code, language }`. */
  args: unknown;
  /** The agent's stated reason. */
  reason?: string;
  taskId?: string | null;
  /** With `taskId`: the worker proposing for the task, which must hold its lease when the proposal is written. */
  taskLeaseOwner?: string | null;
  /** Actions of one logical step share a key (bulk decisions stay within one step). */
  stepKey?: string | null;
  /** The model's tool-call id (tasks only): unique per task, so a repeated step cannot propose twice. */
  agentCallId?: string | null;
  /** Strings the agent read from untrusted tool output (provenance risk tags). */
  untrustedValues?: string[];
  /** The agent surface the proposal came through, when it is not the HTTP API or a task (the actor says which). */
  channel?: "mcp";
  /**
   * API keys only: the submit's Idempotency-Key. The key may submit one action under it; the same
   * request again gets that action back (`replayed`), another request is refused (409).
   */
  submitKey?: string | null;
};

/** With a budgeted policy: each budget the call was judged against, and where it stands after it. */
type Budgets = { budgets?: BudgetLine[] };

export type ProposalOutcome =
  | ({ state: "denied"; actionId: string; reason: string; ruleId: string | null; riskLevel: string } & Budgets)
  | ({
      state: "pending";
      actionId: string;
      revision: number;
      payloadHash: string;
      expiresAt: Date;
      reason: string;
      riskLevel: string;
      quorum: number;
    } & Budgets)
  | ({ state: "allowed"; actionId: string; reason: string; execution: ExecutionOutcome; grant?: GrantLeft } & Budgets)
  /** The key already submitted this request under this Idempotency-Key: that action, as it is now. */
  | { state: "replayed"; actionId: string; submitted: SubmittedActionRow };

// PostgreSQL stores no NUL and no lone surrogate in text: tool output the agent read may hold
// either, and is kept (and assessed) with them replaced, rather than refusing the proposal.
const LONE_SURROGATE = /[\uD800-\uDFFF]/gu;

function storableUntrustedValues(values: string[] | undefined): string[] {
  return (values ?? []).map((value) => value.replaceAll("\u0000", "\uFFFD").replace(LONE_SURROGATE, "\uFFFD"));
}

async function validateArgs(q: Queryable, tenantId: string, toolName: string, raw: unknown): Promise<{ tool: ToolDefinition; args: JsonObject }> {
  const tool = await resolveTool(q, tenantId, toolName);
  // What is stored and hashed is zod's output, so that is what is checked, once (checking the raw
  // value too cost a large body tens of milliseconds of the request thread and decided nothing).
  const parsed = await checkToolArgs(tool, raw);
  if (!parsed.success) {
    throw new AppError("invalid_args", `The arguments for ${tool.name} are not valid: ${describeInvalid(parsed.error)}`, 400);
  }
  assertCanonicalizable(parsed.data);
  return { tool, args: parsed.data };
}

/**
 * propose → policy → run now (allow) / refuse (deny) / wait for reviewers (require_approval) with
 * the TOCTOU snapshot stored. Invalid proposals change nothing but an audit entry.
 */
export async function proposeAction(db: Db, input: ProposeInput): Promise<ProposalOutcome> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const loaded = await cachedTenantPolicy(db, input.tenantId);
    if (!loaded) throw new AppError("not_found", "That organisation was not found.", 404);
    const outcome = await proposeUnder(db, input, loaded);
    if (outcome) return outcome;
    // The tenant's policy or domains changed since they were cached: assess again under the new ones.
    forgetTenantPolicy(input.tenantId);
  }
  throw new Error(`The proposal could not be recorded for tenant ${input.tenantId}: its policy kept changing.`);
}

/** A refusal recorder: one audit event for a proposal refused before anything was written, then the error thrown. */
type Refuse = (error: unknown) => Promise<never>;

/** One proposal, validated and assessed, with the ids its rows are written under. */
type Proposal = {
  db: Db;
  input: ProposeInput;
  tenant: TenantPolicy["tenant"];
  policy: TenantPolicy["policy"];
  grants: TenantPolicy["grants"];
  actor: AuditActor;
  refuse: Refuse;
  tool: ToolDefinition;
  args: JsonObject;
  submitKey: string | null;
  requestHash: string | null;
  untrustedValues: string[];
  assessment: Assessment;
  columns: ReturnType<typeof payloadColumns>;
  actionId: string;
  revisionId: string;
  requesterUserId: string | null;
  requestSnapshotHash: string;
};

/** Every proposal is written as its first revision. */
const FIRST_REVISION = 1;

/**
 * Null: nothing was written, because the tenant's policy or domains are no longer `loaded`.
 * Throws `api_key_revoked` when the requesting key was revoked, whatever authenticated it.
 */
async function proposeUnder(db: Db, input: ProposeInput, loaded: TenantPolicy): Promise<ProposalOutcome | null> {
  const actor = requesterAuditActor(input.requester);
  const { tenant, policy } = loaded;
  const refuse = refusalRecorder(db, input, tenant.id, actor);
  const { tool, args } = await validateProposal(db, input, tenant.id).catch(refuse);
  const submitKey = input.requester.type === "api_key" ? (input.submitKey ?? null) : null;
  const requestHash = submitKey === null ? null : submitRequestHash({ tool: tool.name, args, reason: input.reason, untrustedValues: input.untrustedValues });
  // A retry finds its action without being assessed again; the insert below is what binds the key.
  const earlier = submitKey === null ? null : await submittedUnder(db, input, tenant.id, submitKey, requestHash!);
  if (earlier) return earlier;
  // Kept on the action as assessed: every later revision is assessed against the same sources.
  const untrustedValues = storableUntrustedValues(input.untrustedValues);
  const assessment = await assessPayload(db, {
    tenantId: tenant.id,
    tenantDomains: tenant.domains,
    tool,
    args,
    requesterRoles: input.requester.type === "user" ? input.requester.roles : [],
    untrustedValues,
    reason: (input.reason ?? "").slice(0, 2000),
    policy,
    revision: FIRST_REVISION,
  }).catch((error: unknown) => (isAppError(error) && error.code === "too_complex" ? refuse(error) : Promise.reject(error)));
  return writeProposalOf({
    db, input, tenant, policy, grants: loaded.grants, actor, refuse, tool, args, submitKey, requestHash, untrustedValues, assessment,
    columns: payloadColumns(tool.kind, args, assessment.datasets),
    actionId: randomUUID(),
    revisionId: randomUUID(),
    requesterUserId: input.requester.type === "user" ? input.requester.userId : null,
    requestSnapshotHash: snapshotHash(assessment.snapshot),
  });
}

/** A proposal refused before anything is written leaves one audit event and nothing else. */
function refusalRecorder(db: Db, input: ProposeInput, tenantId: string, actor: AuditActor): Refuse {
  return async (error: unknown): Promise<never> => {
    const { body } = toPublicError(error, "proposeAction");
    await appendAuditEvent(db, {
      tenantId, actor, type: "action.refused", outcome: "refused",
      subject: { type: "action", id: null }, tool: input.tool.slice(0, 64), requester: input.requester.label,
      data: { code: body.code, message: body.message.slice(0, 500), ...(input.channel ? { channel: input.channel } : {}) },
    });
    throw markAudited(error);
  };
}

/** The tool and its parsed arguments; throws (for the refusal recorder) what makes the proposal invalid. */
async function validateProposal(db: Db, input: ProposeInput, tenantId: string): Promise<{ tool: ToolDefinition; args: JsonObject }> {
  const validated = await validateArgs(db, tenantId, input.tool, input.args);
  // Text stored beside the payload is held to the payload's rules (PostgreSQL stores no NUL).
  assertCanonicalizable({ reason: input.reason ?? null, stepKey: input.stepKey ?? null, agentCallId: input.agentCallId ?? null });
  if (input.taskId && !(await taskExists(db, { tenantId, taskId: input.taskId }))) {
    throw new AppError("not_found", "That task was not found.", 404);
  }
  return validated;
}

/** Writes the proposal by the path its policy calls for; null when it must be assessed again. */
async function writeProposalOf(p: Proposal): Promise<ProposalOutcome | null> {
  const { db, input, policy, tool, assessment } = p;
  const budgetTerms = policyBudgetTerms(policy.policy, tool.name);
  if (budgetTerms.length > 0) return writeBudgeted(p, budgetTerms);
  const granted = assessment.decision.effect === "require_approval" ? await writeGranted(p) : null;
  if (granted !== null) return granted;
  if (assessment.decision.effect === "allow" && !input.taskId) return writeAndExecute(p);
  // One statement (shared with concurrent proposals): the audit event, the action, its first
  // revision and the TOCTOU snapshot, written only if the tenant's policy and domains are still
  // those this proposal was assessed under, and the requesting API key (if any) is not revoked.
  const row = await writeProposal(db, proposalRow(p, assessment));
  if (!row.written) return notWritten(p, row.refusal);
  return afterWrite(p, assessment, row.expiresAt);
}

/**
 * A budgeted tool's call, judged again with the budgets' totals under their locks in the
 * transaction that writes it; a standing grant may allow it there only if that verdict sends it to
 * review and the statement takes the grant (budgeted-proposals.ts). Executed after, if allowed.
 */
async function writeBudgeted(p: Proposal, terms: ReturnType<typeof policyBudgetTerms>): Promise<ProposalOutcome | null> {
  const { db, input, tenant, policy, tool, args, assessment } = p;
  const call = { tool: tool.name, args, policyVersion: policy.version, requester: input.requester, taskId: input.taskId ?? null };
  const { written, judged, spentGrantId } = await writeBudgetedProposal(db, {
    party: { tenantId: tenant.id, apiKeyId: input.requester.type === "api_key" ? input.requester.apiKeyId : null, userId: p.requesterUserId, taskId: input.taskId ?? null },
    actionId: p.actionId, tool: tool.name, args, policy: policy.policy, terms, judged: assessment, judgeInput: assessment.judgeInput,
    grantsVersion: p.grants.version,
    grantFor: (judgement) => {
      const grant = standingGrantFor(p.grants, { ...call, decision: judgement.decision });
      return grant ? { grant, judged: grantedJudgement(judgement, grant) } : null;
    },
    rowFor: (judgement, grant) => proposalRow(p, judgement, grant),
  });
  if (spentGrantId !== null) forgetSpentGrant(p.grants, spentGrantId);
  if (!written.written) return notWritten(p, written.refusal);
  const outcome = await afterWrite(p, judged, written.expiresAt);
  return outcome.state === "allowed" && written.grant ? { ...outcome, grant: written.grant } : outcome;
}

/**
 * An allowed proposal outside a task, in one transaction: the proposal's statement, then the
 * claim, the effect and its record. A task's calls keep the shared write instead: a task's
 * proposals share-lock the task, which the record of an execution then updates.
 */
async function writeAndExecute(p: Proposal): Promise<ProposalOutcome | null> {
  const { db, input, tenant, policy, tool, assessment, columns, actionId, revisionId } = p;
  const { decision, hash } = assessment;
  const action: LockedAction = {
    id: actionId, tenantId: tenant.id, kind: tool.kind, tool: tool.name, status: "approved", consumed: false, taskId: null,
    requesterUserId: p.requesterUserId, requesterApiKeyId: input.requester.type === "api_key" ? input.requester.apiKeyId : null, requesterLabel: input.requester.label, reason: (input.reason ?? "").slice(0, 2000),
    untrustedValues: p.untrustedValues, riskLevel: assessment.riskLevel, currentRevision: FIRST_REVISION, payloadHash: hash.hash, revisionId, revision: FIRST_REVISION,
    revisionHash: hash.hash, args: columns.args, code: columns.code, language: columns.language, sandboxSpec: assessment.sandboxSpec,
    policyVersion: policy.version, riskTags: assessment.riskTags as unknown as JsonObject[], requestSnapshot: assessment.snapshot,
  };
  try {
    const execution = await executeAction(db, {
      tenantId: tenant.id, actionId, payloadHash: hash.hash, executor: { type: "requester" }, actor: p.actor,
      fresh: { action, write: async (tx) => (await writeProposals(tx, [proposalRow(p, assessment)]))[0] },
    });
    return { state: "allowed", actionId, reason: decision.reason, execution };
  } catch (error) {
    if (!(error instanceof ProposalNotWritten)) throw error;
    return notWritten(p, error.refusal);
  }
}

/**
 * A call the policy sends to review (no budget read), allowed instead by a standing grant in force that covers it:
 * written approved only if its own statement takes the grant, then executed in a transaction of
 * its own (as a budgeted allowed call is), so the grant's row is locked for one statement only.
 * Null: no grant covers it, or the grant did not take it — the call then waits for review.
 */
async function writeGranted(p: Proposal): Promise<ProposalOutcome | null> {
  const grant = standingGrantFor(p.grants, {
    tool: p.tool.name, args: p.args, policyVersion: p.policy.version, requester: p.input.requester, taskId: p.input.taskId ?? null, decision: p.assessment.decision,
  });
  if (!grant) return null;
  const judgement = grantedJudgement(p.assessment, grant);
  const [written] = await writeProposals(p.db, [proposalRow(p, judgement, grant)]);
  if (!written.written) return isGrantRefusal(written.refusal) ? notTaken(p, grant, written.refusal) : notWritten(p, written.refusal);
  const outcome = await afterWrite(p, judgement, written.expiresAt);
  return outcome.state === "allowed" && written.grant ? { ...outcome, grant: written.grant } : outcome;
}

type Refusal = Extract<ProposalWritten, { written: false }>["refusal"];

function isGrantRefusal(refusal: Refusal): refusal is "grant_spent" | "grant_unfit" {
  return refusal === "grant_spent" || refusal === "grant_unfit";
}

/** The grant did not take the call: one that can take none is not tried again by this process. */
function notTaken(p: Proposal, grant: ProposalGrant, refusal: "grant_spent" | "grant_unfit"): null {
  if (refusal === "grant_spent") forgetSpentGrant(p.grants, grant.id);
  return null;
}

/** The proposal's row for a judgement: the assessment's, or a budgeted one's judged with its totals. */
function proposalRow(p: Proposal, { decision, hash, sandboxSpec }: Judgement, grant: ProposalGrant | null = null): ProposalRow {
  const { input, tenant, policy, tool, assessment, submitKey, actionId, requesterUserId } = p;
  const revision = FIRST_REVISION;
  const status = decision.effect === "deny" ? "denied" : decision.effect === "allow" ? "approved" : "pending";
  const ttl = decision.effect === "allow" ? ALLOWED_EXECUTION_WINDOW_SECONDS : decision.ttlSeconds;
  const event = auditBodyOf({
    tenantId: tenant.id, actor: p.actor, type: decision.effect === "deny" ? "action.denied" : "action.proposed",
    outcome: decision.effect === "deny" ? "refused" : "ok",
    subject: { type: "action", id: actionId }, actionId, tool: tool.name,
    riskLevel: assessment.riskLevel, requester: input.requester.label, status,
    data: {
      revision, payloadHash: hash.hash, effect: decision.effect, ruleId: decision.ruleId, policyReason: decision.reason,
      policyVersion: policy.version, quorum: decision.quorum, riskTags: assessment.riskTags.map((t) => t.id),
      taskId: input.taskId ?? null, ...(input.channel ? { channel: input.channel } : {}), ...(submitKey === null ? {} : { idempotencyKey: submitKey }),
      ...(decision.budgets ? { budgets: decision.budgets } : {}), ...(grant ? { grant: { id: grant.id } } : {}),
    },
  });
  return {
    actionId, revisionId: p.revisionId, snapshotId: randomUUID(), tenantId: tenant.id, domains: tenant.domains, policyVersion: policy.version,
    event, taskId: input.taskId ?? null, taskLeaseOwner: input.taskLeaseOwner ?? null, requesterUserId, requesterRoles: input.requester.type === "user" ? input.requester.roles : null,
    requesterApiKeyId: input.requester.type === "api_key" ? input.requester.apiKeyId : null,
    requesterLabel: input.requester.label, kind: tool.kind, tool: tool.name, reason: (input.reason ?? "").slice(0, 2000),
    stepKey: input.stepKey ?? null, agentCallId: input.agentCallId ?? null, submitKey, submitRequestHash: p.requestHash, untrustedValues: p.untrustedValues, status,
    requiresApproval: decision.effect === "require_approval", revision, payloadHash: hash.hash,
    hashAlgorithm: hash.algorithm, hashVersion: hash.version, riskLevel: assessment.riskLevel,
    riskRank: RISK_RANK[assessment.riskLevel], quorum: Math.max(1, decision.quorum), eligibleRoles: decision.eligibleRoles,
    ttlSeconds: decision.effect === "deny" ? null : ttl, decidedNow: decision.effect !== "require_approval",
    statusReason: decision.reason, ...p.columns, sandboxSpec,
    policyDecision: decision as unknown as JsonObject, riskTags: assessment.riskTags, preview: assessment.preview,
    scanFindings: assessment.scanFindings, createdByUserId: requesterUserId, snapshot: assessment.snapshot,
    snapshotHash: p.requestSnapshotHash,
    // A call that would wait for review is written only while the grants it was looked for among are current.
    grantsVersion: decision.effect === "require_approval" ? p.grants.version : null, grant,
  };
}

/** Nothing was written, for `refusal`: the outcome, null to assess again, or the refusal thrown. */
async function notWritten(p: Proposal, refusal: Extract<ProposalWritten, { written: false }>["refusal"]): Promise<ProposalOutcome | null> {
  const { db, input } = p;
  if (refusal === "api_key_revoked") throw new AppError("api_key_revoked", "That API key has been revoked.", 401);
  if (refusal === "agents_paused") return p.refuse(agentsPausedError());
  if (refusal === "requester_changed") {
    return p.refuse(new AppError("requester_changed", "Your membership or roles in this organisation changed while this was being proposed; nothing was proposed.", 409));
  }
  if (refusal === "task_lease_lost") {
    throw new AppError("task_lease_lost", "Another worker took this task over while this call was being proposed; nothing was proposed.", 409);
  }
  if (refusal === "call_taken" && input.taskId && input.agentCallId) {
    // Proposed first by another worker of the task: that action is this call's.
    const taken = await db.action.findUniqueOrThrow({ where: { taskId_agentCallId: { taskId: input.taskId, agentCallId: input.agentCallId } }, select: { id: true } });
    throw new CallTaken(taken.id);
  }
  if (refusal === "submit_key_taken") {
    // A concurrent duplicate was written first: that one is this request's action.
    const winner = await submittedUnder(db, input, p.tenant.id, p.submitKey!, p.requestHash!);
    if (!winner) throw new Error(`Idempotency-Key conflict on insert, but no action holds it for key ${input.requester.label}.`);
    return winner;
  }
  return null;
}

/** The outcome of a written proposal: refused, run now (allowed), or waiting for reviewers. */
async function afterWrite(p: Proposal, { decision, hash }: Judgement, expiresAt: Date | null): Promise<ProposalOutcome> {
  const { db, tenant, actionId, assessment } = p;
  void requestSeal(db, tenant.id);
  const budgets = decision.budgets ? { budgets: decision.budgets } : {};
  if (decision.effect === "deny") {
    return { state: "denied", actionId, reason: decision.reason, ruleId: decision.ruleId, riskLevel: assessment.riskLevel, ...budgets };
  }
  if (decision.effect === "allow") {
    const execution = await executeAction(db, { tenantId: tenant.id, actionId, payloadHash: hash.hash, executor: { type: "requester" }, actor: p.actor });
    return { state: "allowed", actionId, reason: decision.reason, execution, ...budgets };
  }
  return {
    state: "pending", actionId, revision: FIRST_REVISION, payloadHash: hash.hash, expiresAt: expiresAt!,
    reason: decision.reason, riskLevel: assessment.riskLevel, quorum: decision.quorum, ...budgets,
  };
}

/** A task's tool call that already has an action (`actionId`): the call waits on that one. */
export class CallTaken extends AppError {
  constructor(readonly actionId: string) {
    super("call_taken", "This tool call of the task was already proposed.", 409, { actionId });
  }
}

/**
 * The action the requesting key already submitted under `submitKey`, if any: replayed when the
 * request is the one the key was bound to, refused (409) when it is another.
 */
async function submittedUnder(
  db: Db,
  input: ProposeInput,
  tenantId: string,
  submitKey: string,
  requestHash: string,
): Promise<ProposalOutcome | null> {
  if (input.requester.type !== "api_key") return null;
  const found = await readSubmittedAction(db, { tenantId, apiKeyId: input.requester.apiKeyId, submitKey });
  if (found.keyRevoked) throw new AppError("api_key_revoked", "That API key has been revoked.", 401);
  if (!found.action) return null;
  if (found.action.requestHash !== requestHash) {
    throw new AppError(
      "idempotency_key_reused",
      `This Idempotency-Key was already used for a different request (action ${found.action.id}). Send a new key for a new request, or resend exactly the same request to get that action back.`,
      409,
      { actionId: found.action.id },
    );
  }
  return { state: "replayed", actionId: found.action.id, submitted: found.action };
}
