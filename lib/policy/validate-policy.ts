import { DECIDING_ROLES } from "@/lib/roles/permissions";
import type { Policy } from "./policy-document";
import { compilePolicy, type PolicyValidationError, type PolicyValidationResult } from "./compile-policy";
import { checkRulesAgainstTools } from "./check-rules-against-tools";
import type { PolicyToolCatalogue } from "./policy-tool-catalogue";

/**
 * Validates a policy document before it is saved: shape (unknown keys refused), unique rule ids,
 * every `when` parsed and type-checked against `args`, `tool` and `ctx` (POLICY_CONTEXT_FIELDS), and
 * for a save approver roles that may decide. With `tools`, conditions are typed by each tool's
 * arguments (check-rules-against-tools.ts). A stored version is read as it was saved.
 */
export function validatePolicy(
  doc: unknown,
  options: { forSave?: boolean; codeTools?: readonly string[]; tools?: PolicyToolCatalogue } = {},
): PolicyValidationResult {
  const r = compilePolicy(doc);
  if (!r.ok) return { ...r, notes: [] };
  // Saving holds approvers to the one role model; a stored version is read as it was saved.
  const errors = options.forSave === false ? [] : [...approverErrors(r.compiled.policy), ...sandboxErrors(r.compiled.policy, options.codeTools)];
  const against = options.tools && options.forSave !== false ? checkRulesAgainstTools(r.compiled.policy, options.tools) : { errors: [], notes: [] };
  errors.push(...against.errors);
  return errors.length > 0 ? { ok: false, errors, notes: against.notes } : { ok: true, policy: r.compiled.policy, notes: against.notes };
}

/** Approver roles that cannot decide: a rule naming only them would create actions nobody may approve. */
function approverErrors(policy: Policy): PolicyValidationError[] {
  const errors: PolicyValidationError[] = [];
  const check = (path: string, who: string, roles: readonly string[] | undefined) => {
    const cannot = (roles ?? []).filter((role) => !(DECIDING_ROLES as readonly string[]).includes(role));
    if (cannot.length > 0) {
      errors.push({
        path,
        message: `${who}: ${cannot.join(", ")} may not decide actions, so they cannot approve (roles that may: ${DECIDING_ROLES.join(", ")}).`,
      });
    }
  };
  check("defaults.eligibleRoles", "Defaults", policy.defaults.eligibleRoles);
  for (const [tool, toolPolicy] of Object.entries(policy.tools)) {
    toolPolicy.rules.forEach((rule, i) => check(`tools.${tool}.rules.${i}.eligibleRoles`, `Rule "${rule.id}"`, rule.eligibleRoles));
  }
  return errors;
}

/** `sandbox` only means something on a rule of a tool that runs code (when the caller knows which do). */
function sandboxErrors(policy: Policy, codeTools: readonly string[] | undefined): PolicyValidationError[] {
  if (codeTools === undefined) return [];
  const errors: PolicyValidationError[] = [];
  for (const [tool, toolPolicy] of Object.entries(policy.tools)) {
    if (codeTools.includes(tool)) continue;
    toolPolicy.rules.forEach((rule, i) => {
      if (rule.sandbox === undefined) return;
      errors.push({
        path: `tools.${tool}.rules.${i}.sandbox`,
        message: `Rule "${rule.id}": sandbox applies only to tools that run code (${codeTools.join(", ")}); ${tool} runs none.`,
      });
    });
  }
  return errors;
}
