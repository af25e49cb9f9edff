import type { z } from "zod";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { Db, DbTx } from "@/lib/db/client";
import type { PolicyContext } from "@/lib/policy/evaluate-policy";

/** A tool's classes feed risk tags: what kind of effect it has on the world. */
export type ToolClass = "read" | "write" | "irreversible" | "financial" | "external-comms" | "code-exec" | "pii";

/** Reads (snapshots) may run inside a caller's transaction. */
export type ReadContext = { db: DbTx; tenantId: string };
/** Effects get the full client: effects that span rows open their own transaction. */
export type ToolContext = { db: Db; tenantId: string };

/** The before/after a reviewer sees. `before`/`after` are flat field → value maps shown as a diff. */
export type ToolPreview = { summary: string; before: JsonObject | null; after: JsonObject | null };

export type ToolExecuteOptions = {
  /** Streamed output (code tools). */
  onOutput?: (stream: "stdout" | "stderr", text: string) => void;
  signal?: AbortSignal;
  /** Code tools: the approved sandbox spec (part of the hashed payload). */
  sandboxSpec?: JsonObject | null;
  /**
   * The tool's snapshot as re-read just before the claim and found equal to what reviewers saw
   * (absent when a crashed execution is retried). An effect may rely on it instead of reading the
   * same rows again.
   */
  verifiedState?: JsonObject | null;
};

export type ToolOutcome = {
  /** false: the tool ran and refused or failed (e.g. the invoice was already paid); recorded as failed. */
  ok: boolean;
  result: JsonObject;
  /** For code: the sandbox isolation level used. */
  isolation?: string;
};

/**
 * The contract every tool implements; adding a tool is one file plus a line in the registry.
 * Arguments are validated by `args` (a strict zod object: unknown keys refused) before any other
 * method sees them.
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
   * The state the decision rests on (TOCTOU), read from the database. Compared again just before
   * execution: if it differs, the approval is invalidated. Null for tools that rest on nothing.
   * Throws AppError (e.g. not_found) for arguments that name nothing.
   */
  snapshot(ctx: ReadContext, args: z.infer<S>): Promise<JsonObject | null>;
  /** What the reviewer sees will change. */
  preview(args: z.infer<S>, snapshot: JsonObject | null): ToolPreview;
  /** Facts the policy's CEL conditions and the risk tags read (amounts, domains). */
  policyContext?(args: z.infer<S>, snapshot: JsonObject | null): Partial<PolicyContext> & { amountThresholdMinor?: number };
  /** Whether a retry with the same key after a crash is safe (the effect honours the key). */
  honoursIdempotencyKey(args: z.infer<S>): boolean;
  /** Performs the effect. Must honour `idempotencyKey` when `honoursIdempotencyKey` says so. */
  execute(ctx: ToolContext, args: z.infer<S>, idempotencyKey: string, options: ToolExecuteOptions): Promise<ToolOutcome>;
};

/** Widens a concrete tool to the registry's element type. */
export function defineTool<S extends z.ZodType<JsonObject>>(tool: ToolDefinition<S>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}
