import { z } from "zod";
import type { JsonObject } from "@/lib/canonical/json-value";
import { RISK_LEVELS, type Effect, type Policy, type PolicyRule, type SandboxRequirement, type Tier } from "./policy-document";
import { toCelValue } from "./policy-cel";
import { parsePolicyDuration } from "./policy-duration";
import { DECIDING_ROLES } from "@/lib/roles/permissions";
import type { Role } from "@/lib/generated/prisma/enums";
import { compilePolicy, type CompiledPolicy } from "./compile-policy";
import { BudgetTotals, type BudgetScope, type BudgetTotalsInput, type RuleBudgetTerm } from "./policy-budgets";

export type PolicyContext = {
  requesterRoles: string[];
  amountMinor?: number;
  recipientDomain?: string;
  customerVerifiedDomains?: string[];
  tenantDomains?: string[];
  riskLevel?: string;
  /** Ids of the risk tags lib/risk produced, e.g. "injection.instruction". */
  riskTags?: string[];
};

export type PolicyInput = {
  tool: string;
  args: JsonObject;
  context: PolicyContext;
  /** What a tool the policy does not list gets: deny (absent), or the defaults' approval for an upstream MCP tool an admin pinned. */
  unlisted?: "require_approval";
  /** The budget totals the tool's rules read (policyBudgetTerms), by budgetTermKey; a rule reading one not given is denied. */
  budgets?: BudgetTotalsInput;
};

export type PolicyDecision = {
  effect: Effect;
  /** The rule that decided, or null for a built-in fallback. */
  ruleId: string | null;
  /** Which rule matched and why, in words for requesters, reviewers and the agent. */
  reason: string;
  /** Distinct approvals needed; 0 unless effect is require_approval. */
  quorum: number;
  /** Who may approve; [] unless effect is require_approval. */
  eligibleRoles: Role[];
  ttlSeconds: number;
  tier: Tier;
  /**
   * `required`: each approval must carry the reviewer's passkey signature over the receipt (the
   * vote statement refuses one without); from the rule, or the defaults' `signatureAtRisk`.
   */
  signature?: "required";
  /** The deciding rule requires this isolation for code (absent: the console's default level). */
  sandbox?: SandboxRequirement;
  /** The rule's minimum time on screen before an approval counts (enforced by the vote). */
  minViewSeconds?: number;
  /** Once the revision has waited `afterSeconds`, notify `role` (and `channel`); lib/notifications sweeps it. */
  escalate?: { afterSeconds: number; role: Role; channel?: string };
  /** Warn the eligible reviewers this long before the revision expires. */
  warnBeforeExpirySeconds?: number;
  /**
   * The longest standing grant reviewers may approve from this call (seconds; 0: none may be).
   * Absent: the 24h maximum.
   */
  grantMaxSeconds?: number;
  /** The standing grant that allowed this call instead of a review (lib/grants). */
  grant?: { id: string };
  /** The budgets the tool's rules read, as judged for this call (lib/approvals/budgeted-proposals.ts). */
  budgets?: BudgetLine[];
};

/**
 * One budget as a call was judged against it: the running total before the call and after it (the
 * same when the call is not counted, e.g. denied), and the integer the rule compares it with, if any.
 */
export type BudgetLine = {
  window: string;
  measure: "count" | "sum";
  tool: string;
  argument: string | null;
  by: BudgetScope;
  limit: number | null;
  usedBefore: number;
  usedAfter: number;
};

const PolicyContextSchema = z.strictObject({
  requesterRoles: z.array(z.string()),
  amountMinor: z.number().int().refine(Number.isSafeInteger, "must be a safe integer").optional(),
  recipientDomain: z.string().optional(),
  customerVerifiedDomains: z.array(z.string()).optional(),
  tenantDomains: z.array(z.string()).optional(),
  riskLevel: z.string().optional(),
  riskTags: z.array(z.string()).optional(),
});

// Compiling is cheap but not free; a policy object loaded once is evaluated many times.
const compiledCache = new WeakMap<Policy, ReturnType<typeof compilePolicy>>();

/**
 * Decides what happens to a proposed action: the first of the tool's rules whose `when` holds
 * decides, with `policy.defaults` filling its gaps. Fails closed and never throws (docs/DESIGN.md,
 * "The policy fails closed").
 */
export function evaluatePolicy(policy: Policy, input: PolicyInput): PolicyDecision {
  const decision = evaluateRules(policy, input);
  if (decision.effect !== "require_approval" || decision.signature === "required") return decision;
  const from = policy.defaults.signatureAtRisk;
  const level = RISK_LEVELS.findIndex((l) => l === input.context.riskLevel);
  return from !== undefined && level >= RISK_LEVELS.indexOf(from) ? { ...decision, signature: "required" } : decision;
}

function compiledOf(policy: Policy): ReturnType<typeof compilePolicy> {
  let compiledResult = compiledCache.get(policy);
  if (compiledResult === undefined) {
    compiledResult = compilePolicy(policy);
    compiledCache.set(policy, compiledResult);
  }
  return compiledResult;
}

/** The budget totals `tool`'s rules read, each with its rule (empty: no budget, and none is read). */
export function policyBudgetTerms(policy: Policy, tool: string): ReadonlyArray<RuleBudgetTerm & { ruleId: string }> {
  // Compiling a large policy is work for the compute pool: a tool whose rules never name `budget` reads none.
  const rules = Object.hasOwn(policy.tools ?? {}, tool) ? policy.tools[tool].rules : [];
  if (!Array.isArray(rules) || !rules.some((rule) => typeof rule.when === "string" && rule.when.includes("budget"))) return [];
  const compiled = compiledOf(policy);
  return (compiled.ok && compiled.compiled.budgets.get(tool)) || [];
}

function evaluateRules(policy: Policy, input: PolicyInput): PolicyDecision {
  const compiledResult = compiledOf(policy);
  if (!compiledResult.ok) {
    const first = compiledResult.errors[0];
    return failClosed(null, `The tenant's policy is invalid (${first?.path}: ${first?.message}); every action is denied until it is fixed.`);
  }
  const compiled = compiledResult.compiled;

  const context = PolicyContextSchema.safeParse(input.context);
  if (!context.success) {
    const issue = context.error.issues[0];
    return failClosed(null, `The policy context is malformed (ctx.${issue?.path.join(".")}: ${issue?.message}); denied.`);
  }

  const toolPolicy = Object.hasOwn(compiled.policy.tools, input.tool) ? compiled.policy.tools[input.tool] : undefined;
  if (toolPolicy === undefined) {
    if (input.unlisted === "require_approval") {
      const d = compiled.policy.defaults;
      return approvableBy({
        effect: "require_approval",
        ruleId: null,
        reason: `No policy rule names the MCP tool ${input.tool}, so it needs approval with the policy defaults (an admin may add rules for it).`,
        quorum: d.quorum,
        eligibleRoles: [...d.eligibleRoles],
        ttlSeconds: d.ttlSeconds,
        tier: "standard",
      });
    }
    return failClosed(null, `No policy covers the tool "${input.tool}", so it is denied; an admin must add it to the policy first.`);
  }

  const celContext = {
    args: toCelValue(input.args),
    tool: input.tool,
    ctx: celCtx(context.data),
    budget: new BudgetTotals(input.budgets),
  };

  for (const rule of toolPolicy.rules) {
    const outcome = ruleMatches(compiled, rule, celContext);
    if (outcome.error !== undefined) {
      return failClosed(
        rule.id,
        `Rule "${rule.id}" of ${input.tool} could not be evaluated (${outcome.error}); denied rather than guessed.`,
      );
    }
    if (outcome.matched) return decide(compiled.policy, rule, input.tool);
  }

  const d = compiled.policy.defaults;
  return approvableBy({
    effect: "require_approval",
    ruleId: null,
    reason: `No rule of ${input.tool} matched, so it needs approval with the policy defaults.`,
    quorum: d.quorum,
    eligibleRoles: [...d.eligibleRoles],
    ttlSeconds: d.ttlSeconds,
    tier: "standard",
  });
}

/**
 * Keeps only approver roles that hold the decide permission (an older version may name another);
 * a decision nobody could approve is denied rather than left to expire.
 */
function approvableBy(decision: PolicyDecision): PolicyDecision {
  if (decision.effect !== "require_approval") return decision;
  const eligibleRoles = decision.eligibleRoles.filter((role) => DECIDING_ROLES.includes(role));
  if (eligibleRoles.length > 0) return { ...decision, eligibleRoles };
  const rule = decision.ruleId ? `Rule "${decision.ruleId}"` : "The policy defaults";
  return failClosed(
    decision.ruleId,
    `${rule} names only ${decision.eligibleRoles.join(", ")} as approvers, and no such role may decide actions (only ${DECIDING_ROLES.join(", ")} may), so nobody could approve it; denied.`,
  );
}

function ruleMatches(
  compiled: CompiledPolicy,
  rule: PolicyRule,
  celContext: Record<string, unknown>,
): { matched: boolean; error?: string } {
  if (rule.when === undefined) return { matched: true };
  const condition = compiled.conditions.get(rule.id);
  if (condition === undefined) return { matched: false, error: "its condition was not compiled" };
  try {
    const result: unknown = condition(celContext);
    if (typeof result !== "boolean") return { matched: false, error: `the condition yielded ${typeof result}, not a boolean` };
    return { matched: result };
  } catch (e) {
    const msg = e instanceof Error ? e.message.split("\n")[0] : String(e);
    return { matched: false, error: msg };
  }
}

function decide(policy: Policy, rule: PolicyRule, tool: string): PolicyDecision {
  const why = rule.when === undefined ? "applies to every call" : `matched: ${rule.when}`;
  const base = {
    effect: rule.effect,
    ruleId: rule.id,
    reason: `${rule.reason} (rule "${rule.id}" of ${tool} ${why})`,
    ttlSeconds: rule.ttlSeconds ?? policy.defaults.ttlSeconds,
    tier: rule.tier ?? "standard",
    ...(rule.sandbox !== undefined && rule.effect !== "deny" ? { sandbox: rule.sandbox } : {}),
  };
  if (rule.effect !== "require_approval") return { ...base, quorum: 0, eligibleRoles: [] };
  return approvableBy({
    ...base,
    quorum: rule.quorum ?? policy.defaults.quorum,
    eligibleRoles: [...(rule.eligibleRoles ?? policy.defaults.eligibleRoles)],
    ...(rule.signature === "required" ? { signature: "required" as const } : {}),
    ...(rule.minViewSeconds === undefined ? {} : { minViewSeconds: rule.minViewSeconds }),
    ...(rule.grants === "never" ? { grantMaxSeconds: 0 } : rule.grantMaxTtl === undefined ? {} : { grantMaxSeconds: parsePolicyDuration(rule.grantMaxTtl) ?? 0 }),
    ...reminders(rule),
  });
}

/** The rule's escalation and expiry warning in seconds (the document was validated, so they parse). */
function reminders(rule: PolicyRule): Pick<PolicyDecision, "escalate" | "warnBeforeExpirySeconds"> {
  const out: Pick<PolicyDecision, "escalate" | "warnBeforeExpirySeconds"> = {};
  const after = rule.escalate ? parsePolicyDuration(rule.escalate.after) : null;
  if (rule.escalate && after !== null) {
    out.escalate = { afterSeconds: after, role: rule.escalate.role, ...(rule.escalate.channel ? { channel: rule.escalate.channel } : {}) };
  }
  const warn = rule.warnBeforeExpiry === undefined ? null : parsePolicyDuration(rule.warnBeforeExpiry);
  if (warn !== null) out.warnBeforeExpirySeconds = warn;
  return out;
}

function failClosed(ruleId: string | null, reason: string, tier: Tier = "critical"): PolicyDecision {
  return { effect: "deny", ruleId, reason, quorum: 0, eligibleRoles: [], ttlSeconds: 0, tier };
}

function celCtx(c: PolicyContext): Record<string, unknown> {
  const lower = (xs: string[] | undefined) => (xs ?? []).map((x) => x.toLowerCase().replace(/\.$/, ""));
  const out: Record<string, unknown> = {
    requesterRoles: c.requesterRoles,
    customerVerifiedDomains: lower(c.customerVerifiedDomains),
    tenantDomains: lower(c.tenantDomains),
    riskTags: c.riskTags ?? [],
  };
  if (c.amountMinor !== undefined) out.amountMinor = BigInt(c.amountMinor);
  if (c.recipientDomain !== undefined) out.recipientDomain = c.recipientDomain.toLowerCase();
  if (c.riskLevel !== undefined) out.riskLevel = c.riskLevel;
  return out;
}
