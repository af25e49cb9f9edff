import { z } from "zod";

/**
 * The agent API's request and response shapes. The same schemas validate requests in the route
 * handlers and generate /api/v1/openapi.json (lib/api/openapi.ts), so the document cannot drift.
 * Request objects are strict: unknown keys are refused.
 */

const ReasonSchema = z.string().max(2000).describe("Why the agent wants this; shown to the reviewer.");
const UntrustedValuesSchema = z
  .array(z.string().max(2000))
  .max(50)
  .describe("Strings the agent read from untrusted sources (web pages, emails, tool output); arguments containing them are tagged.");

export const SubmitToolCallSchema = z
  .strictObject({
    tool: z.string().min(1).max(64).describe("A tool name this key may propose, e.g. refund_invoice."),
    args: z.record(z.string(), z.unknown()).describe("The tool's arguments; each tool's schema refuses unknown keys."),
    reason: ReasonSchema.optional(),
    untrustedValues: UntrustedValuesSchema.optional(),
  })
  .meta({ id: "SubmitToolCall", title: "Tool call" });

export const SubmitCodeSchema = z
  .strictObject({
    code: z.string().min(1).max(100_000).describe("Python 3 source, run in the sandbox once approved."),
    language: z
      .literal("python", {
        error: (issue) =>
          issue.input === undefined
            ? 'language is missing: send "language": "python" with the code (Python 3 is the only language).'
            : 'language must be "python" (Python 3 is the only language).',
      })
      .describe('The code\'s language; "python" is the only one.'),
    reason: ReasonSchema.optional(),
    untrustedValues: UntrustedValuesSchema.optional(),
  })
  .meta({ id: "SubmitCode", title: "Code block" });

export const SubmitActionSchema = z.union([SubmitToolCallSchema, SubmitCodeSchema]).meta({ id: "SubmitAction" });
export type SubmitAction = z.infer<typeof SubmitActionSchema>;

export const ActionStateSchema = z
  .enum(["pending", "approved", "rejected", "expired", "cancelled", "invalidated", "denied", "executing", "succeeded", "failed", "unknown"])
  .describe("pending → approved | rejected | expired | cancelled; approved → executing → succeeded | failed | unknown; invalidated when the state it rests on changed.")
  .meta({ id: "ActionState" });

const IdSchema = z.uuid();
const TimestampSchema = z.string().describe("ISO 8601 timestamp");

export const ExecutionSchema = z
  .object({
    id: IdSchema,
    state: z.enum(["executing", "succeeded", "failed", "unknown"]),
    isolation: z.string().nullable().describe("container | namespace (code) or in-process (tools)"),
    result: z.record(z.string(), z.unknown()).nullable(),
    exitCode: z.number().int().nullable(),
    truncated: z.boolean(),
    durationMs: z.number().int().nullable(),
    startedAt: TimestampSchema,
    finishedAt: TimestampSchema.nullable(),
  })
  .meta({ id: "Execution" });

const ReplayedSchema = z
  .boolean()
  .describe("True when this answers a retried submit: the action the key already submitted under this Idempotency-Key, not a new one.");
const SubmittedStateSchema = ActionStateSchema.describe(
  "The action's state now (`state` is how the policy classified it). On a first submit it follows from `state`; on a replay the action may have moved on (approved, rejected, executed…).",
);

const BudgetsSchema = z
  .array(
    z
      .object({
        window: z.string().describe('The rule\'s window, e.g. "24h" (rolling, on the database clock).'),
        measure: z.enum(["count", "sum"]),
        tool: z.string(),
        argument: z.string().nullable().describe("The summed integer argument (sum), or null (count)."),
        by: z.enum(["key", "task", "requester", "tenant"]).describe("Whose calls are counted."),
        used: z.number().int().describe("The total in the window, this call included when it counts (allowed or waiting for review): what ran, is approved or waits."),
        limit: z.number().int().nullable().describe("The integer the rule compares the total with, when it names one."),
        remaining: z.number().int().nullable().describe("limit − used (at least 0), when there is a limit."),
      })
      .meta({ id: "Budget" }),
  )
  .optional()
  .describe("Present when the tool's policy rules read budgets: each budget this call was judged against, as it stands after it. Absent on a replay.");

const GrantUseSchema = z
  .object({
    id: IdSchema.describe("The standing grant that allowed this call without review (its id is in the action's audit events)."),
    callsLeft: z.number().int().nullable().describe("Calls the grant still allows after this one; null when it limits only a total."),
    totalLeft: z.number().int().nullable().describe("What is left of the grant's total of its argument (integer minor units) after this call; null without a total."),
    expiresAt: TimestampSchema.describe("When the grant ends (it may be revoked sooner)."),
  })
  .meta({ id: "GrantUse" })
  .optional()
  .describe("Present when the policy would have sent this call to review and a reviewers' standing grant allowed it instead. Absent on a replay.");

export const SubmitResponseSchema = z
  .discriminatedUnion("state", [
    z.object({
      state: z.literal("pending"),
      id: IdSchema,
      revision: z.number().int(),
      payloadHash: z.string(),
      expiresAt: TimestampSchema,
      riskLevel: z.string(),
      quorum: z.number().int(),
      policyReason: z.string(),
      budgets: BudgetsSchema,
      replayed: ReplayedSchema,
      actionState: SubmittedStateSchema,
    }),
    z.object({
      state: z.literal("allowed"),
      id: IdSchema,
      policyReason: z.string(),
      execution: z
        .object({
          state: z.enum(["succeeded", "failed", "unknown"]),
          executionId: IdSchema,
          result: z.record(z.string(), z.unknown()),
          isolation: z.string().nullable(),
        })
        .nullable()
        .describe("How the run ended. Null only on a replay whose run has not ended (or never started): POST /execute returns or awaits it."),
      budgets: BudgetsSchema,
      grant: GrantUseSchema,
      replayed: ReplayedSchema,
      actionState: SubmittedStateSchema,
    }),
    z.object({
      state: z.literal("denied"),
      id: IdSchema,
      reason: z.string(),
      ruleId: z.string().nullable(),
      riskLevel: z.string(),
      budgets: BudgetsSchema,
      replayed: ReplayedSchema,
      actionState: SubmittedStateSchema,
    }),
  ])
  .meta({ id: "SubmitResponse" });
export type SubmitResponse = z.infer<typeof SubmitResponseSchema>;

export const DecisionEntrySchema = z.object({
  revision: z.number().int(),
  verdict: z.enum(["approve", "reject"]),
  note: z.string().nullable().describe("The reviewer's note; for a rejection, the reason."),
  reviewer: z.string().describe("The reviewer's display name."),
  decidedAt: TimestampSchema,
  void: z.boolean().describe("True when the vote was on a revision that has since been superseded."),
  counts: z.boolean().describe(
    "True when the vote counts: while the action is pending or approved, by the rule its execution applies (a vote stops counting when its reviewer loses the standing to decide, or removes the passkey that signed it); once decided, each reviewer's last vote on the revision.",
  ),
});

export const ActionViewSchema = z
  .object({
    id: IdSchema,
    state: ActionStateSchema,
    statusReason: z.string().nullable().describe("Why it is in this state (policy reason, rejection reason, expiry)."),
    kind: z.enum(["tool", "code"]),
    tool: z.string(),
    args: z.record(z.string(), z.unknown()).nullable(),
    code: z.string().nullable(),
    language: z.string().nullable(),
    reason: z.string(),
    requester: z.string(),
    riskLevel: z.string(),
    riskTags: z.array(z.record(z.string(), z.unknown())),
    revision: z.number().int(),
    payloadHash: z.string(),
    quorum: z.number().int(),
    approvals: z.number().int().describe("Approvals of the current revision so far."),
    expiresAt: TimestampSchema.nullable(),
    createdAt: TimestampSchema,
    decidedAt: TimestampSchema.nullable(),
    decisions: z.array(DecisionEntrySchema),
    execution: ExecutionSchema.nullable(),
  })
  .meta({ id: "Action" });
export type ActionView = z.infer<typeof ActionViewSchema>;

export const DecisionWaitQuerySchema = z.strictObject({
  timeout: z.coerce.number().int().min(0).max(60).default(25).describe("Seconds to wait for a decision (0–60, default 25)."),
});

export const DecisionWaitResponseSchema = z
  .object({
    id: IdSchema,
    state: ActionStateSchema,
    decided: z.boolean().describe("False when the wait timed out and the action is still pending: ask again."),
    revision: z.number().int(),
    payloadHash: z.string().describe("The hash of the current revision: send it to execute what was approved."),
    reason: z.string().nullable().describe("The rejection reason, or why it is in this state."),
    expiresAt: TimestampSchema.nullable(),
  })
  .meta({ id: "DecisionWait" });

export const ExecuteBodySchema = z
  .strictObject({
    payloadHash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional()
      .describe("The hash you expect to execute; refused with hash_mismatch if a reviewer edited the action since. Omit to execute the approved revision."),
  })
  .meta({ id: "ExecuteRequest" });

export const BrowserExecuteBodySchema = z.strictObject({
  payloadHash: z.string().regex(/^[0-9a-f]{64}$/).describe("The hash the reviewer saw."),
});

export const ExecuteToolResponseSchema = z
  .object({
    id: IdSchema.describe("The action's id."),
    executionId: IdSchema,
    state: z.enum(["succeeded", "failed", "unknown", "executing"]),
    result: z.record(z.string(), z.unknown()).nullable(),
    isolation: z.string().nullable(),
    replayed: z.boolean().describe("True when this is the recorded result of an earlier execution, not a new run."),
    idempotencyKey: z.string(),
  })
  .meta({ id: "ExecuteToolResult" });

export const StreamEventSchema = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("stdout"), text: z.string() }),
    z.object({ type: z.literal("stderr"), text: z.string() }),
    z.object({ type: z.literal("heartbeat") }),
    z.object({
      type: z.literal("result"),
      state: z.enum(["succeeded", "failed", "unknown", "executing"]),
      executionId: z.string().nullable(),
      exitCode: z.number().int().nullable(),
      durationMs: z.number().int().nullable(),
      truncated: z.boolean(),
      timedOut: z.boolean().optional(),
      isolation: z.string().nullable(),
      replayed: z.boolean(),
      stdout: z.string().optional().describe("Only on a replay: the recorded output."),
      stderr: z.string().optional().describe("Only on a replay: the recorded output."),
      result: z.record(z.string(), z.unknown()).nullable().optional().describe("Tool actions: the tool's result."),
    }),
    z.object({ type: z.literal("error"), code: z.string(), message: z.string() }),
  ])
  .describe("One line of the application/x-ndjson stream.")
  .meta({ id: "ExecutionStreamEvent" });
export type StreamEvent = z.infer<typeof StreamEventSchema>;

export const CancelBodySchema = z
  .strictObject({ reason: z.string().max(2000).optional() })
  .meta({ id: "CancelRequest" });

export const CancelResponseSchema = z.object({ id: IdSchema, state: z.literal("cancelled") }).meta({ id: "CancelResult" });

export const ErrorResponseSchema = z
  .object({
    error: z.object({
      code: z.string().describe("Stable, machine-readable, e.g. invalid_input, tool_not_allowed, not_executable.pending."),
      message: z.string().describe("For a person."),
      details: z.unknown().optional(),
    }),
  })
  .meta({ id: "Error" });

export const ActionIdParamsSchema = z.strictObject({ id: z.string() });

// ---- audit evidence (lib/audit/audit-proofs.ts) -------------------------------------------------

const TreeSizeSchema = z.string().regex(/^\d{1,18}$/).describe("A tree size or leaf number, as a decimal string.");
const HashHexSchema = z.string().regex(/^[0-9a-f]{64}$/).describe("SHA-256, lower-case hex.");
const seqParam = (description: string) => z.string().regex(/^[1-9]\d{0,17}$/, "a whole number from 1").transform(BigInt).describe(description);

export const AuditCheckpointSchema = z.object({
  size: TreeSizeSchema,
  rootHash: HashHexSchema,
  note: z.string().describe("The C2SP tlog-checkpoint signed note (log signature and witness cosignatures)."),
  witnesses: z.array(z.string()).describe("Witnesses that co-signed it."),
  createdAt: z.string().describe("When it was signed (ISO 8601)."),
});

export const AuditLogInfoSchema = z.object({
  origin: z.string().describe("This tenant's log, as named in its checkpoints."),
  verifierKey: z.string().describe("The log's Ed25519 verifier key (C2SP signed-note format)."),
  treeSize: TreeSizeSchema,
  checkpoint: AuditCheckpointSchema.nullable().describe("The latest signed checkpoint, if any."),
});

export const InclusionProofQuerySchema = z.strictObject({
  seq: seqParam("The event's leaf number (1-based: its `seq`)."),
  treeSize: seqParam("The tree size to prove against (default: the latest checkpoint's).").optional(),
});

export const InclusionProofSchema = z.object({
  seq: TreeSizeSchema,
  leafIndex: TreeSizeSchema.describe("0-based, as RFC 9162 counts."),
  treeSize: TreeSizeSchema,
  leafHash: HashHexSchema,
  path: z.array(HashHexSchema).describe("RFC 9162 §2.1.3 inclusion proof, leaf side first."),
  checkpoint: AuditCheckpointSchema.nullable().describe("The signed checkpoint of exactly this tree size, if there is one."),
});

export const ConsistencyProofQuerySchema = z.strictObject({
  from: seqParam("The older tree size."),
  to: seqParam("The newer tree size (default: the latest checkpoint's).").optional(),
});

export const ConsistencyProofSchema = z.object({
  from: TreeSizeSchema,
  to: TreeSizeSchema,
  path: z.array(HashHexSchema).describe("RFC 9162 §2.1.4 consistency proof."),
});
