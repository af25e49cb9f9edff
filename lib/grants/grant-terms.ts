import { z } from "zod";
import type { ParseResult } from "@marcbachmann/cel-js";
import { canonicalJson } from "@/lib/canonical/canonical-json";
import { sha256Hex } from "@/lib/canonical/sha256-hex";
import type { JsonObject } from "@/lib/canonical/json-value";
import { AppError } from "@/lib/errors";
import { policyCelEnvironment, toCelValue } from "@/lib/policy/policy-cel";
import { GRANT_TTL_MAX_SECONDS } from "@/lib/policy/policy-document";

/**
 * What a reviewer approves besides the action: calls of the same key (or task) to the same tool
 * whose arguments satisfy `constraint` (CEL over `args`; `description` says it in words), at most
 * `maxCalls` and/or a `maxTotal` of the integer argument `totalArgument`, for `ttlSeconds`.
 */
export const GrantTermsSchema = z.strictObject({
  constraint: z.string().trim().min(1).max(2000),
  description: z.string().trim().min(1).max(500),
  maxCalls: z.number().int().min(1).max(100_000).nullable(),
  totalArgument: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/).nullable(),
  maxTotal: z.number().int().min(1).refine(Number.isSafeInteger, "must be a safe integer").nullable(),
  ttlSeconds: z.number().int().min(60).max(GRANT_TTL_MAX_SECONDS),
})
  .refine((t) => t.maxCalls !== null || t.maxTotal !== null, "a grant needs at most N calls, a total, or both")
  .refine((t) => (t.totalArgument === null) === (t.maxTotal === null), "a total names its argument, and an argument its total");

export type GrantTerms = z.infer<typeof GrantTermsSchema>;

/** Who a grant's calls come from: the source action's API key, else its task. */
export type GrantScope = { apiKeyId: string } | { taskId: string };

/** The action a grant is approved from, as the vote's caller read it under the action's lock. */
export type GrantSource = {
  tenantId: string;
  actionId: string;
  revision: number;
  tool: string;
  apiKeyId: string | null;
  taskId: string | null;
  args: JsonObject | null;
};

/** The SHA-256 of a grant's canonical terms with the action, revision, tool and scope it is bound to: what approvals combine on and receipts sign. */
export function grantTermsHash(source: GrantSource, terms: GrantTerms): string {
  return sha256Hex(canonicalJson({
    v: 1, tenant: source.tenantId, action: source.actionId, revision: source.revision, tool: source.tool,
    scope: scopeOf(source) as unknown as JsonObject, ...terms,
  }));
}

function scopeOf(source: GrantSource): GrantScope | null {
  if (source.apiKeyId) return { apiKeyId: source.apiKeyId };
  if (source.taskId) return { taskId: source.taskId };
  return null;
}

const compiled = new Map<string, ParseResult>();

/**
 * A grant's constraint is evaluated in the request thread (for arguments within INLINE_CHARS), so
 * its cost must be bounded by the arguments' size: no regex (`matches` may backtrack without end)
 * and at most one comprehension, as the policy's inline judge requires of its conditions.
 */
const UNBOUNDED_CEL = /\bmatches\s*\(/;
const COMPREHENSION = /\.\s*(?:all|exists|exists_one|map|filter)\s*\(/g;

/** The constraint compiled (cached by text): throws when it does not parse or is not a condition. */
function compiledConstraint(constraint: string): ParseResult {
  const cached = compiled.get(constraint);
  if (cached) return cached;
  if (UNBOUNDED_CEL.test(constraint) || (constraint.match(COMPREHENSION)?.length ?? 0) > 1) {
    throw new Error("it may use no matches() and at most one comprehension (all, exists, map, filter)");
  }
  const parsed = policyCelEnvironment.parse(constraint);
  const check = parsed.check();
  if (!check.valid) throw new Error(check.error?.message.split("\n")[0] ?? "does not type-check");
  if (check.type !== "bool" && check.type !== "dyn") throw new Error(`yields ${check.type}, not a condition`);
  if (compiled.size > 4_096) compiled.clear();
  compiled.set(constraint, parsed);
  return parsed;
}

/** Whether `args` satisfy a grant's constraint; anything that fails to evaluate does not (the call goes to review). */
export function constraintHolds(constraint: string, args: JsonObject): boolean {
  try {
    return compiledConstraint(constraint)({ args: toCelValue(args) }) === true;
  } catch {
    return false;
  }
}

/** What a call spends of a grant's total: its integer argument, or null when it has none to spend. */
export function grantAmountOf(totalArgument: string | null, args: JsonObject): number | null {
  if (totalArgument === null) return 0;
  const value = args[totalArgument];
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/**
 * The grant terms a reviewer sent, checked against the action they are approving: an agent's call
 * (key or task), a constraint that compiles and covers this very call, a total of an integer
 * argument this call has. The rule's cap on the duration is the vote statement's to check.
 */
export function checkGrantTerms(source: GrantSource, raw: unknown): { terms: GrantTerms; hash: string; scope: GrantScope } {
  const parsed = GrantTermsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AppError("invalid_grant", `The grant's terms are not valid: ${issue?.path.join(".") || "terms"}: ${issue?.message}.`, 400);
  }
  const terms = parsed.data;
  const scope = scopeOf(source);
  if (!scope || !source.args) throw new AppError("invalid_grant", "Only an agent's tool calls (an API key's or a task's) can be approved with calls like them.", 400);
  try {
    compiledConstraint(terms.constraint);
  } catch (error) {
    throw new AppError("invalid_grant", `The grant's constraint is not a CEL condition over args: ${(error as Error).message}`, 400);
  }
  if (!constraintHolds(terms.constraint, source.args)) throw new AppError("invalid_grant", "The grant's constraint does not hold for this action's own arguments.", 400);
  const amount = grantAmountOf(terms.totalArgument, source.args);
  if (amount === null) throw new AppError("invalid_grant", `This action has no whole-number argument ${terms.totalArgument} to count a total of.`, 400);
  if (terms.maxTotal !== null && amount > terms.maxTotal) throw new AppError("invalid_grant", "The grant's total is smaller than this action's own amount.", 400);
  return { terms, hash: grantTermsHash(source, terms), scope };
}
