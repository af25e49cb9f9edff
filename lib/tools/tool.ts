import type { z } from "zod";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { Queryable, SqlClient } from "@/lib/db/sql";
import type { PolicyContext } from "@/lib/policy/evaluate-policy";
import type { ToolClass } from "@/lib/risk/risk-tags-for";

export type ReadContext = {
  q: Queryable;
  tenantId: string;
  /**
   * Set when the gate re-reads the state just before an execution, inside the claim's
   * transaction: the rows read stay locked until the effect commits, so what was checked is what
   * the effect acts on.
   */
  lock?: boolean;
};

/** The database part of an effect, inside the transaction that claimed the approval. */
export type ApplyContext = {
  q: SqlClient;
  tenantId: string;
  actionId: string;
  /** Derived from the approval; rows the effect writes are unique on it. */
  idempotencyKey: string;
  /**
   * The tool's snapshot as the reviewers saw it, re-read under lock in this transaction and found
   * unchanged (null for tools that rest on nothing). The effect's writes are conditioned on it.
   */
  verified: JsonObject | null;
};

/** What `apply` did. `stateChanged`: the verified state no longer holds, and nothing was written. */
export type Applied =
  | { ok: boolean; result: JsonObject; /** `deliver` follows, after the claim commits. */ deliver?: boolean }
  | { stateChanged: string };

/** The part of an effect that leaves the database (a sandbox run, an SMTP delivery). */
export type DeliverContext = {
  q: Queryable;
  tenantId: string;
  idempotencyKey: string;
  /** Code tools: the approved sandbox spec (part of the hashed payload). */
  sandboxSpec: JsonObject | null;
  /** What `apply` returned. */
  applied: JsonObject;
  /** Code tools: the data sets as approved (name, SHA-256, size); the run verifies the bytes against them. */
  approvedDatasets: { name: string; sha256: string; bytes: number }[];
  onOutput?: (stream: "stdout" | "stderr", text: string) => void;
  signal?: AbortSignal;
};

export type ToolOutcome = {
  /** false: the tool ran and refused or failed (e.g. the invoice was already paid); recorded as failed. */
  ok: boolean;
  result: JsonObject;
  /** For code: the sandbox isolation level used. */
  isolation?: string;
  /** For code: the files the run left in /mnt/out, stored with the execution (their ids are in `result`). */
  artifacts?: StoredArtifact[];
};

export type StoredArtifact = { id: string; name: string; contentType: string; sha256: string; bytes: Buffer };

/**
 * The contract every tool implements; adding a tool is one file plus a line in the registry.
 * Arguments are validated by `args` (a strict zod object: unknown keys refused), and by `checkArgs`
 * where a tool has one, before any other method sees them (checkToolArgs, parse-tool-args.ts).
 *
 * An execution is `apply` inside the transaction that claims the approval (so a crash or a
 * refusal leaves nothing half done), then, for tools whose effect leaves the database, `deliver`
 * once that transaction has committed. A delivery interrupted by a crash is recorded `unknown`
 * for a person: it is never retried blindly.
 */
export type ToolDefinition<S extends z.ZodType<JsonObject> = z.ZodType<JsonObject>> = {
  name: string;
  /** "code" tools carry a code block (hashed as code + language + sandbox spec, not as args). */
  kind: "tool" | "code";
  /** For the model and for reviewers. */
  description: string;
  classes: ToolClass[];
  args: S;
  /**
   * The arguments' JSON Schema when a JSON Schema, not `args`, describes them (an upstream MCP
   * tool's pinned inputSchema): what models and MCP clients are given. Absent: generated from `args`
   * (lib/tools/tool-input-schema.ts).
   */
  inputSchema?: JsonObject;
  /**
   * What the policy decides when it has no entry for this tool. Absent: deny (nobody has assessed
   * it). "require_approval": an admin approved (pinned) it — an upstream MCP tool — so each call
   * goes to a reviewer until the policy says otherwise.
   */
  unlistedEffect?: "require_approval";
  /**
   * The part of the arguments' check whose cost grows with them beyond a walk of `args` (an upstream
   * MCP tool's JSON Schema: formats, patterns, uniqueItems over objects): run on the compute pool
   * under its budget, by checkToolArgs (parse-tool-args.ts) after `args` parsed them. Null: they fit;
   * otherwise why not.
   */
  checkArgs?(args: JsonObject): Promise<string | null>;
  /** For an upstream MCP tool: its server and its own name there (absent for built-in tools). */
  upstream?: { server: string; tool: string };
  /**
   * The state the decision rests on (TOCTOU), read from the database. Read again under lock just
   * before execution: if it differs, the approval is invalidated and a fresh revision queued.
   * Null for tools that rest on nothing. Throws AppError (e.g. not_found) for arguments that name
   * nothing.
   */
  snapshot(ctx: ReadContext, args: z.infer<S>): Promise<JsonObject | null>;
  /**
   * `snapshot` for many argument sets at once in a bounded number of reads (the review queue's
   * page): for each, in order, what `snapshot` returns or the error it throws. Never locks.
   * Absent: `snapshot` is called once per argument set.
   */
  snapshots?(ctx: Omit<ReadContext, "lock">, args: z.infer<S>[]): Promise<Array<JsonObject | null | Error>>;
  /** What the reviewer sees will change. */
  preview(args: z.infer<S>, snapshot: JsonObject | null): ToolPreview;
  /**
   * Checks of the arguments against the state they rest on (a refund above what is still
   * refundable, cancelling an invoice that is not open, emailing an opted-out customer). Each
   * finding blocks the payload where it is judged (judgePayload: denied with the finding, never
   * shown to a reviewer as approvable); `apply` runs the same check on the verified state.
   */
  stateChecks?(args: z.infer<S>, snapshot: JsonObject | null): StateFinding[];
  /** Facts the policy's CEL conditions and the risk tags read (amounts, domains). */
  policyContext?(args: z.infer<S>, snapshot: JsonObject | null): Partial<PolicyContext> & { amountThresholdMinor?: number };
  /** The effect's database writes, conditioned on `ctx.verified`; reads only what it may read. */
  apply(ctx: ApplyContext, args: z.infer<S>): Promise<Applied>;
  /** The effect outside the database, when `apply` asked for it. */
  deliver?(ctx: DeliverContext, args: z.infer<S>): Promise<ToolOutcome>;
};

/** An argument that does not fit the state it rests on. `fields`: the argument names involved. */
export type StateFinding = { id: `state.${string}`; reason: string; fields: string[] };

/** The before/after a reviewer sees. `before`/`after` are flat field → value maps shown as a diff. */
export type ToolPreview = { summary: string; before: JsonObject | null; after: JsonObject | null };

/** Widens a concrete tool to the registry's element type. */
export function defineTool<S extends z.ZodType<JsonObject>>(tool: ToolDefinition<S>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}
