import type { BudgetLine } from "@/lib/policy/evaluate-policy";
import type { GrantDraft } from "@/lib/grants/grant-draft";
import type { GrantListing } from "@/lib/grants/list-grants";
import type { ArtifactView } from "@/lib/executions/artifact-view";
import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";
import type { FieldChange, LineChange, RemovedTag } from "@/lib/approvals/payload-diff";
import type { RiskLevel, RiskTag } from "@/lib/risk/risk-tag";
import type { ResultText, UnpreparedResult } from "@/lib/review/result-text";

export type ScanFindingView = { rule: string; line: number; column?: number; message: string; severity: RiskLevel };

export type RevisionView = {
  id: string;
  revision: number;
  status: "current" | "superseded";
  /** What the tool receives: the arguments, or for code `{ code, language }`. */
  args: JsonObject;
  code: string | null;
  language: string | null;
  sandboxSpec: JsonObject | null;
  /** Code: the data sets it mounts at /mnt/data, with the SHA-256 and size the approval binds. */
  datasets: { name: string; sha256: string; bytes: number }[];
  policyVersion: number;
  policyDecision: {
    effect?: string; ruleId?: string | null; reason?: string; quorum?: number; eligibleRoles?: string[]; ttlSeconds?: number; tier?: string; signature?: string;
    /** The budgets the revision was judged against (a budgeted tool's policy). */
    budgets?: BudgetLine[];
    /** The longest standing grant its rule allows (seconds; absent: 24h). */
    grantMaxSeconds?: number;
    /** The standing grant that allowed it without review. */
    grant?: { id: string };
  };
  payloadHash: string;
  hashAlgorithm: string;
  hashVersion: number;
  riskTags: RiskTag[];
  riskLevel: RiskLevel;
  preview: { summary: string; before: JsonObject | null; after: JsonObject | null } | null;
  scanFindings: ScanFindingView[];
  /** `unavailable`: the diff was too large to compute, and both versions are shown whole. */
  diff: { fields: FieldChange[]; code?: LineChange[]; removedTags?: RemovedTag[]; unavailable?: string } | null;
  origin: string;
  createdBy: string | null;
  createdAt: string;
};

export type DecisionView = {
  id: string;
  reviewer: string;
  reviewerId: string;
  verdict: "approve" | "reject";
  note: string | null;
  revision: number;
  void: boolean;
  /**
   * Whether it counts toward the current revision's outcome (lib/db/statements/actions/approval-rules.ts):
   * false for a void vote and — while the action is pending or approved — for one whose reviewer
   * lost the standing to decide or whose signing passkey was removed since.
   */
  counts: boolean;
  createdAt: string;
  /** The passkey signature the vote carries, if any. */
  signedWith: { passkeyName: string; receiptHash: string; userVerified: boolean; backupState: boolean } | null;
};

export type SnapshotView = { phase: string; revision: number; data: JsonValue; hash: string; takenAt: string };

/** The state an action rests on, read now and compared as the vote compares it (lib/review/read-states-now.ts). */
export type StateNow =
  | { state: "none" }
  /**
   * `effectNow` and `effectAfterNow`: the effect's "before" and "after" computed from the state now
   * (the effect table's "Now" and "After" columns).
   */
  | { state: "unchanged"; data: JsonObject | null; hash: string; effectNow: JsonObject | null; effectAfterNow: JsonObject | null }
  | { state: "changed"; data: JsonObject | null; hash: string; changes: FieldChange[]; effectNow: JsonObject | null; effectAfterNow: JsonObject | null }
  /**
   * No state to show now. `gone`: what it rests on no longer exists (a deleted record, an upstream
   * tool held or removed), a change as the vote judges it; otherwise it could not be read or compared.
   */
  | { state: "unreadable"; message: string; gone?: { changes: FieldChange[] } };

export type ExecutionView = {
  id: string;
  revision: number;
  status: string;
  isolation: string | null;
  exitCode: number | null;
  stdout: string | null;
  stderr: string | null;
  truncated: boolean;
  durationMs: number | null;
  error: string | null;
  /** The result's start as shown (at most RESULT_SHOWN_CHARACTERS), prepared on the compute pool; null: none. */
  result: ResultText | UnpreparedResult | null;
  startedAt: string;
  /** Files the run left in /mnt/out. */
  artifacts: ArtifactView[];
};

/** What this viewer may do here, and if not, why (in words). The server re-checks everything. */
export type ViewerCapabilities = {
  canDecide: boolean;
  canEdit: boolean;
  canRun: boolean;
  /** Shown instead of the buttons when a reviewer cannot decide. */
  decideBlockedReason: string | null;
  myVote: "approve" | "reject" | null;
};

/**
 * For a call to an upstream MCP tool: what the reviewers' approval rests on — the definition an
 * admin pinned, as it was when this revision was proposed (from its request snapshot).
 */
export type UpstreamToolView = {
  server: string;
  tool: string;
  title: string | null;
  description: string | null;
  /** The hints as the server gave them (absent ones shown with the MCP specification's defaults). */
  hints: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  /** Which hints the server actually set (the others are defaults). */
  hintsGiven: string[];
  definitionHash: string;
};

export type ActionDetail = {
  id: string;
  tool: string;
  kind: "tool" | "code";
  status: string;
  statusReason: string | null;
  reason: string;
  requesterLabel: string;
  task: { id: string; instruction: string; status: string } | null;
  stepKey: string | null;
  riskLevel: RiskLevel;
  quorum: number;
  eligibleRoles: string[];
  expiresAt: string | null;
  createdAt: string;
  decidedAt: string | null;
  currentRevision: number;
  payloadHash: string;
  /** Approvals on the current revision (not void). */
  approvals: number;
  revisions: RevisionView[];
  current: RevisionView;
  decisions: DecisionView[];
  requestSnapshot: SnapshotView | null;
  /** Snapshots taken just before an execution attempt, newest first. */
  preExecutionSnapshots: SnapshotView[];
  stateNow: StateNow;
  /** Null unless the tool is an upstream MCP tool. */
  upstream: UpstreamToolView | null;
  /** The JSON Schema of the tool's arguments, for the edit form; null for code or an unknown tool. */
  argsSchema: JsonObject | null;
  executions: ExecutionView[];
  viewer: ViewerCapabilities;
  /** "This and calls like it", pre-filled for the reviewer (lib/grants/grant-draft.ts); null when no grant can be approved from it. */
  grantDraft: GrantDraft | null;
  /** Standing grants made from this action, and the one it ran under. */
  grants: GrantListing[];
};
