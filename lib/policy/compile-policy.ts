import type { ParseResult } from "@marcbachmann/cel-js";
import { PolicyDocumentSchema, type Policy, type PolicyRule } from "./policy-document";
import { formatPolicyDuration, parsePolicyDuration } from "./policy-duration";
import { policyCelEnvironment } from "./policy-cel";
import { budgetTermsIn, type RuleBudgetTerm } from "./policy-budgets";

export type PolicyValidationError = { path: string; message: string };
/** `notes`: what could not be checked (an MCP tool without a known schema), said rather than passed as valid. */
export type PolicyValidationResult =
  | { ok: true; policy: Policy; notes: PolicyValidationError[] }
  | { ok: false; errors: PolicyValidationError[]; notes: PolicyValidationError[] };

/**
 * A validated policy with each rule's `when` compiled, keyed by rule id, and the budget totals
 * each tool's rules read (policy-budgets.ts), keyed by tool; a tool whose rules read none is absent.
 */
export type CompiledPolicy = {
  policy: Policy;
  conditions: ReadonlyMap<string, ParseResult>;
  budgets: ReadonlyMap<string, Array<RuleBudgetTerm & { ruleId: string }>>;
};

export function compilePolicy(
  doc: unknown,
): { ok: true; compiled: CompiledPolicy } | { ok: false; errors: PolicyValidationError[] } {
  const parsed = PolicyDocumentSchema.safeParse(doc);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => ({
      path: issue.path.map(String).join(".") || "(document)",
      message: issue.message,
    }));
    // Report broken conditions in the same pass, so an admin fixes everything at once.
    for (const { path, id, when } of rawConditions(doc)) {
      const message = compileError(when, null, () => undefined);
      if (message !== null) errors.push({ path, message: `Rule "${id}": ${message}` });
    }
    return { ok: false, errors };
  }
  const policy = parsed.data;
  const errors: PolicyValidationError[] = [];
  const conditions = new Map<string, ParseResult>();
  const seen = new Map<string, string>();
  const budgets = new Map<string, Array<RuleBudgetTerm & { ruleId: string }>>();
  const toolNames = new Set(Object.keys(policy.tools));

  for (const [tool, toolPolicy] of Object.entries(policy.tools)) {
    toolPolicy.rules.forEach((rule, i) => {
      const path = `tools.${tool}.rules.${i}`;
      const firstUse = seen.get(rule.id);
      if (firstUse !== undefined) {
        errors.push({ path: `${path}.id`, message: `Rule id "${rule.id}" is already used at ${firstUse}.` });
      } else {
        seen.set(rule.id, path);
      }
      if (rule.effect !== "require_approval") {
        for (const field of ["quorum", "eligibleRoles", "ttlSeconds", "signature", "minViewSeconds", "escalate", "warnBeforeExpiry", "grantMaxTtl", "grants"] as const) {
          if (rule[field] !== undefined) {
            errors.push({
              path: `${path}.${field}`,
              message: `Rule "${rule.id}": ${field} only applies to require_approval rules.`,
            });
          }
        }
      }
      errors.push(...reminderErrors(rule, path, rule.ttlSeconds ?? policy.defaults.ttlSeconds));
      if (rule.effect === "deny" && rule.sandbox !== undefined) {
        errors.push({ path: `${path}.sandbox`, message: `Rule "${rule.id}": sandbox has no effect on a deny rule (denied code never runs).` });
      }
      if (rule.when === undefined) return;
      const message = compileError(rule.when, toolNames, (compiled, terms) => {
        conditions.set(rule.id, compiled);
        if (terms.length > 0) budgets.set(tool, [...(budgets.get(tool) ?? []), ...terms.map((t) => ({ ...t, ruleId: rule.id }))]);
      });
      if (message !== null) errors.push({ path: `${path}.when`, message: `Rule "${rule.id}": ${message}` });
    });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, compiled: { policy, conditions, budgets } };
}

/** A reminder must fall inside the approval window, or it could never fire. */
function reminderErrors(rule: PolicyRule, path: string, ttlSeconds: number): PolicyValidationError[] {
  if (rule.effect !== "require_approval") return [];
  const errors: PolicyValidationError[] = [];
  const window = formatPolicyDuration(ttlSeconds);
  const after = rule.escalate ? parsePolicyDuration(rule.escalate.after) : null;
  if (after !== null && after >= ttlSeconds) {
    errors.push({
      path: `${path}.escalate.after`,
      message: `Rule "${rule.id}": escalate.after (${rule.escalate?.after}) is not shorter than the approval window (${window}), so it would never fire; shorten it or lengthen ttlSeconds.`,
    });
  }
  const warn = rule.warnBeforeExpiry === undefined ? null : parsePolicyDuration(rule.warnBeforeExpiry);
  if (warn !== null && warn >= ttlSeconds) {
    errors.push({
      path: `${path}.warnBeforeExpiry`,
      message: `Rule "${rule.id}": warnBeforeExpiry (${rule.warnBeforeExpiry}) is not shorter than the approval window (${window}); shorten it or lengthen ttlSeconds.`,
    });
  }
  return errors;
}

function compileError(
  expression: string,
  tools: ReadonlySet<string> | null,
  onCompiled: (p: ParseResult, budgetTerms: RuleBudgetTerm[]) => void,
): string | null {
  let compiled: ParseResult;
  try {
    compiled = policyCelEnvironment.parse(expression);
  } catch (e) {
    return `does not parse: ${firstLine(e)}`;
  }
  const check = compiled.check();
  if (!check.valid) return `does not type-check: ${firstLine(check.error)}`;
  if (check.type !== "bool" && check.type !== "dyn") return `must be a boolean condition, but it yields ${check.type}.`;
  const budget = budgetTermsIn(compiled.ast, tools);
  if (budget.errors.length > 0) return budget.errors.join(" ");
  onCompiled(compiled, budget.terms);
  return null;
}

function firstLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.split("\n")[0] ?? msg;
}

function rawConditions(doc: unknown): Array<{ path: string; id: string; when: string }> {
  const out: Array<{ path: string; id: string; when: string }> = [];
  const tools = isRecord(doc) ? doc.tools : undefined;
  if (!isRecord(tools)) return out;
  for (const [tool, toolPolicy] of Object.entries(tools)) {
    const rules = isRecord(toolPolicy) ? toolPolicy.rules : undefined;
    if (!Array.isArray(rules)) continue;
    rules.forEach((rule: unknown, i) => {
      if (isRecord(rule) && typeof rule.when === "string" && rule.when.trim() !== "") {
        const id = typeof rule.id === "string" ? rule.id : `#${i}`;
        out.push({ path: `tools.${tool}.rules.${i}.when`, id, when: rule.when });
      }
    });
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
