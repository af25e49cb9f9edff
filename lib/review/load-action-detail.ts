import { draftGrantTerms } from "@/lib/grants/grant-draft";
import { listGrants } from "@/lib/grants/list-grants";
import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";
import type { Db } from "@/lib/db/client";
import { decodeStoredText } from "@/lib/db/stored-text";
import type { Role } from "@/lib/generated/prisma/enums";
import { datasetRefsOf, toolArgsOf } from "@/lib/approvals/action-revision";
import { hasPermission } from "@/lib/roles/permissions";
import { readStateNow } from "@/lib/review/read-state-now";
import { ARTIFACT_LISTING, artifactViewOf } from "@/lib/executions/artifact-view";
import { readExecutionResults } from "@/lib/db/statements/executions/read-execution-results";
import { prepareResultTexts } from "@/lib/review/prepare-result-texts";
import { readVoterStanding, type VoterStanding } from "@/lib/db/statements/actions/read-voter-standing";
import { readCountingDecisions } from "@/lib/db/statements/actions/read-counting-decisions";
import { decisionsAsUsed } from "@/lib/review/decisions-as-used";
import { sortedTags } from "@/lib/review/list-review-queue";
import type { ActionDetail, DecisionView, ExecutionView, RevisionView, ScanFindingView, SnapshotView, UpstreamToolView, ViewerCapabilities } from "@/lib/review/action-detail";
import { effectiveHints, type UpstreamAnnotations } from "@/lib/mcp/upstream/tool-definition";
import { findTenantTool, isUpstreamToolName } from "@/lib/tools/tenant-tools";
import { toolInputSchema } from "@/lib/tools/tool-input-schema";

type Viewer = { tenantId: string; userId: string; roles: Role[] };

/**
 * Everything the action page shows, read in this tenant only (another tenant's id is simply not
 * found). The state the decision rests on is read again now, to show whether it changed.
 */
export async function loadActionDetail(db: Db, viewer: Viewer, actionId: string): Promise<ActionDetail | null> {
  const action = await readActionRecord(db, viewer.tenantId, actionId);
  if (!action) return null;

  const userIds = [...new Set([...action.decisions.map((d) => d.reviewerId), ...action.revisions.flatMap((r) => (r.createdByUserId ? [r.createdByUserId] : []))])];
  const [users, results] = await Promise.all([
    userIds.length
      ? db.user.findMany({ where: { id: { in: userIds }, memberships: { some: { tenantId: viewer.tenantId } } }, select: { id: true, email: true } })
      : [],
    (action.executions.length ? readExecutionResults(db, { tenantId: viewer.tenantId, actionId: action.id }) : Promise.resolve([])).then(prepareResultTexts),
  ]);
  const label = (id: string) => users.find((u) => u.id === id)?.email ?? "a former member";
  const revisionNumber = new Map(action.revisions.map((r) => [r.id, r.revision]));

  const revisions = action.revisions.map((r) => revisionViewOf(action.kind, r, label));
  const current = revisions.find((r) => r.revision === action.currentRevision) ?? revisions[0];

  // While the decision still matters, which votes count is asked of the rule a claim applies; after
  // it, the record shows the votes as they were used.
  const counting = LIVE_STATES.has(action.status)
    ? await readCountingDecisions(db, { tenantId: viewer.tenantId, actionIds: [action.id] })
    : decisionsAsUsed(action.decisions);
  const decisions = action.decisions.map((d): DecisionView => ({
    id: d.id, reviewer: label(d.reviewerId), reviewerId: d.reviewerId, verdict: d.verdict, note: d.note,
    revision: revisionNumber.get(d.revisionId) ?? 0, void: d.void, createdAt: d.createdAt.toISOString(), counts: counting.has(d.id),
    signedWith: d.signature,
  }));
  const snapshots = action.snapshots.map((s): SnapshotView => ({
    phase: s.phase, revision: revisionNumber.get(s.revisionId) ?? 0, data: s.data as JsonValue, hash: s.hash, takenAt: s.takenAt.toISOString(),
  }));
  const requestSnapshot = snapshots.find((s) => s.phase === "request" && s.revision === current.revision) ?? null;
  const currentVotes = decisions.filter((d) => d.revision === current.revision && !d.void);

  return {
    id: action.id,
    tool: action.tool,
    kind: action.kind,
    status: action.status,
    statusReason: action.statusReason,
    reason: action.reason,
    requesterLabel: action.requesterLabel,
    task: action.task,
    stepKey: action.stepKey,
    riskLevel: action.riskLevel,
    quorum: action.quorum,
    eligibleRoles: action.eligibleRoles,
    expiresAt: action.expiresAt?.toISOString() ?? null,
    createdAt: action.createdAt.toISOString(),
    decidedAt: action.decidedAt?.toISOString() ?? null,
    currentRevision: action.currentRevision,
    payloadHash: action.payloadHash,
    approvals: currentVotes.filter((d) => d.verdict === "approve" && d.counts).length,
    revisions,
    current,
    decisions,
    requestSnapshot,
    preExecutionSnapshots: snapshots.filter((s) => s.phase === "pre_execution"),
    // Only while the decision still matters is the state read again.
    stateNow: LIVE_STATES.has(action.status)
      ? await readStateNow(db, { tenantId: viewer.tenantId, tool: action.tool, args: current.args, atRequest: requestSnapshot })
      : { state: "none" },
    upstream: isUpstreamToolName(action.tool) ? upstreamViewOf(requestSnapshot?.data ?? null) : null,
    argsSchema: await argsSchemaOf(db, viewer.tenantId, action.kind, action.tool),
    executions: action.executions.map((e) => executionViewOf(action.id, e, results)),
    viewer: capabilities(viewer, {
      status: action.status, eligibleRoles: action.eligibleRoles, kind: action.kind,
      standing: await readVoterStanding(db, { tenantId: viewer.tenantId, actionId: action.id, memberId: viewer.userId }),
      // A vote of theirs that stopped counting leaves them free to decide again (cast-vote.ts).
      myVote: currentVotes.find((d) => d.reviewerId === viewer.userId && d.counts)?.verdict ?? null,
    }),
    grantDraft: action.status === "pending" && action.kind === "tool"
      ? draftGrantTerms({ args: current.args, agentCall: action.requesterApiKeyId !== null || action.taskId !== null, grantMaxSeconds: current.policyDecision.grantMaxSeconds })
      : null,
    grants: await listGrants(db, viewer.tenantId, { id: action.id, grantId: current.policyDecision.grant?.id ?? null }),
  };
}

/** The schema the edit form is generated from (code is edited as JSON only). */
async function argsSchemaOf(db: Db, tenantId: string, kind: ActionRecord["kind"], name: string): Promise<JsonObject | null> {
  if (kind !== "tool") return null;
  const tool = await findTenantTool(db, tenantId, name);
  return tool ? toolInputSchema(tool) : null;
}

/** The action with its task, revisions, decisions, snapshots and executions, all of this tenant. */
function readActionRecord(db: Db, tenantId: string, actionId: string) {
  return db.action.findFirst({
    where: { id: actionId, tenantId },
    include: {
      task: { select: { id: true, instruction: true, status: true } },
      revisions: { where: { tenantId }, orderBy: { revision: "desc" } },
      decisions: {
        where: { tenantId }, orderBy: { createdAt: "asc" },
        include: { signature: { select: { passkeyName: true, receiptHash: true, userVerified: true, backupState: true } } },
      },
      snapshots: { where: { tenantId }, orderBy: { takenAt: "desc" } },
      executions: {
        where: { tenantId },
        orderBy: { startedAt: "desc" },
        // A result may be megabytes: it is read as text and prepared off the request thread (loadActionDetail).
        omit: { result: true },
        include: { artifacts: { where: { tenantId }, orderBy: { name: "asc" }, select: ARTIFACT_LISTING } },
      },
    },
  });
}

type ActionRecord = NonNullable<Awaited<ReturnType<typeof readActionRecord>>>;

function revisionViewOf(kind: ActionRecord["kind"], r: ActionRecord["revisions"][number], label: (userId: string) => string): RevisionView {
  return {
    id: r.id,
    revision: r.revision,
    status: r.status,
    args: toolArgsOf({ kind, args: r.args as JsonObject | null, code: r.code, language: r.language }),
    code: r.code,
    language: r.language,
    sandboxSpec: (r.sandboxSpec as JsonObject | null) ?? null,
    datasets: datasetRefsOf({ kind, args: r.args as JsonObject | null }),
    policyVersion: r.policyVersion,
    policyDecision: (r.policyDecision as RevisionView["policyDecision"]) ?? {},
    payloadHash: r.payloadHash,
    hashAlgorithm: r.hashAlgorithm,
    hashVersion: r.hashVersion,
    riskTags: sortedTags(r.riskTags),
    riskLevel: r.riskLevel,
    preview: (r.preview as RevisionView["preview"]) ?? null,
    scanFindings: Array.isArray(r.scanFindings) ? (r.scanFindings as ScanFindingView[]) : [],
    diff: (r.diff as RevisionView["diff"]) ?? null,
    origin: r.origin,
    createdBy: r.createdByUserId ? label(r.createdByUserId) : null,
    createdAt: r.createdAt.toISOString(),
  };
}

function executionViewOf(actionId: string, e: ActionRecord["executions"][number], results: Map<string, ExecutionView["result"]>): ExecutionView {
  return {
    id: e.id, revision: e.revision, status: e.status, isolation: e.isolation, exitCode: e.exitCode,
    stdout: e.stdout === null ? null : decodeStoredText(e.stdout), stderr: e.stderr === null ? null : decodeStoredText(e.stderr),
    truncated: e.truncated, durationMs: e.durationMs, error: e.error, result: results.get(e.id) ?? null, startedAt: e.startedAt.toISOString(),
    artifacts: e.artifacts.map((a) => artifactViewOf(actionId, a)),
  };
}

/** The pinned definition an upstream call's revision rests on, from its request snapshot. */
function upstreamViewOf(data: JsonValue | null): UpstreamToolView | null {
  if (!data || typeof data !== "object" || Array.isArray(data)) return null;
  const text = (v: JsonValue | undefined) => (typeof v === "string" ? v : null);
  const server = text(data.server);
  const tool = text(data.tool);
  const definitionHash = text(data.definitionHash);
  if (!server || !tool || !definitionHash) return null;
  const annotations = data.annotations && typeof data.annotations === "object" && !Array.isArray(data.annotations) ? (data.annotations as UpstreamAnnotations) : null;
  return {
    server, tool, definitionHash, title: text(data.title), description: text(data.description), hints: effectiveHints(annotations),
    hintsGiven: Object.keys(annotations ?? {}).filter((key) => key.endsWith("Hint")),
  };
}

/** Only while the decision still matters is the state read again. */
const LIVE_STATES = new Set(["pending", "approved"]);

/** What the page offers this viewer: the same rule the vote applies (approval-rules.ts), in words. */
function capabilities(
  viewer: Viewer,
  a: { status: string; eligibleRoles: Role[]; standing: VoterStanding | null; myVote: "approve" | "reject" | null; kind: string },
): ViewerCapabilities {
  const mayDecide = hasPermission(viewer.roles, "actions:decide");
  // No standing: the action is not there to decide. A null refusal means they may.
  const refusal = a.standing ? a.standing.refusal : "not_eligible";
  const expired = a.standing ? a.standing.expired : true;
  let reason: string | null = null;
  if (!mayDecide) reason = "Your roles let you read this action, not decide it.";
  else if (a.status !== "pending") reason = null;
  else if (expired) reason = "The approval window has closed.";
  else if (refusal === "not_eligible") reason = `Only ${a.eligibleRoles.join(" or ")} members may decide this action.`;
  else if (refusal === "self_approval") reason = "You requested this action, so another reviewer must decide it.";
  else if (refusal === "key_creator") reason = "You created the API key that requested this action, so another reviewer must decide it.";
  else if (refusal === "own_edit") reason = "You wrote this revision, so another reviewer must decide it.";
  else if (a.myVote) reason = `You already ${a.myVote === "approve" ? "approved" : "rejected"} this revision; another reviewer must add the next vote.`;
  const canDecide = mayDecide && a.status === "pending" && reason === null;
  return {
    canDecide,
    canEdit: mayDecide && ["pending", "approved"].includes(a.status) && (refusal === null || refusal === "own_edit") && !expired,
    canRun: mayDecide && a.kind === "code" && a.status === "approved" && !expired,
    decideBlockedReason: a.status === "pending" ? reason : null,
    myVote: a.myVote,
  };
}
