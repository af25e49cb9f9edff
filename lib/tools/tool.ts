import type { z } from "zod";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { Queryable, SqlClient } from "@/lib/db/sql";
import type { PolicyContext } from "@/lib/policy/evaluate-policy";
import type { ToolClass } from "@/lib/risk/risk-tags-for";
import type { StateReference } from "@/lib/tools/state-references";

export type ReadContext = {
  q: Queryable;
  tenantId: string;
  /** In the claim's transaction: the rows read stay locked until the effect commits. */
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
 * The contract every tool implements (one file plus a registry line). Arguments pass `args` (strict)
 * and `checkArgs` first. `apply` runs in the claim's transaction; `deliver`, for effects that leave
 * the database, after it commits, and one cut off by a crash is `unknown`, never retried blindly
 * (docs/DESIGN.md, "Effects happen once").
 */
export type ToolDefinition<S extends z.ZodType<JsonObject> = z.ZodType<JsonObject>> = {
  name: string;
  /** "code" tools carry a code block (hashed as code + language + sandbox spec, not as args). */
  kind: "tool" | "code";
  /** For the model and for reviewers. */
  description: string;
  classes: ToolClass[];
  args: S;
  /** An upstream MCP tool's pinned inputSchema, given to models and clients. Absent: generated from `args`. */
  inputSchema?: JsonObject;
  /** The policy's effect with no entry for this tool. Absent: deny. An approved upstream MCP tool: require_approval. */
  unlistedEffect?: "require_approval";
  /**
   * The arguments' check whose cost grows beyond a walk of `args` (an MCP tool's JSON Schema), run
   * on the compute pool by checkToolArgs. Null: they fit; otherwise why not.
   */
  checkArgs?(args: JsonObject): Promise<string | null>;
  /** For an upstream MCP tool: its server and its own name there (absent for built-in tools). */
  upstream?: { server: string; tool: string };
  /**
   * The records the arguments name and the fields of each the effect and the preview depend on
   * (state-references.ts); `snapshot` is exactly those fields. Every argument that names a record
   * must be covered (state-references.test.ts). Absent: the tool rests on nothing (a read).
   */
  restsOn?: readonly StateReference[];
  /**
   * The state the decision rests on, read again under lock before execution (a change invalidates
   * the approval and queues a fresh revision). Null: rests on nothing. AppError for arguments that
   * name nothing.
   */
  snapshot(ctx: ReadContext, args: z.infer<S>): Promise<JsonObject | null>;
  /** `snapshot` for many argument sets in a bounded number of reads (the queue's page), in order. Never locks. */
  snapshots?(ctx: Omit<ReadContext, "lock">, args: z.infer<S>[]): Promise<Array<JsonObject | null | Error>>;
  /** What the reviewer sees will change. */
  preview(args: z.infer<S>, snapshot: JsonObject | null): ToolPreview;
  /**
   * Checks of the arguments against their state (a refund above what is refundable, an invoice not
   * open, an opted-out customer): each finding denies the payload (judgePayload), and `apply`
   * re-checks on the verified state.
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
