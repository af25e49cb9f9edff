import { isUpstreamToolName } from "@/lib/tools/tenant-tools";
import { celArgSchema } from "./cel-arg-schema";
import { typedArgsCelEnvironment, type CelSchema } from "./policy-cel";
import type { Policy } from "./policy-document";
import type { PolicyToolCatalogue } from "./policy-tool-catalogue";
import { policyBudgetTerms } from "./evaluate-policy";

type Problem = { path: string; message: string };

/**
 * Holds a valid policy to the tools that exist: a tool name no tool has is an error (its rules
 * could never apply), and every condition is type-checked with `args` typed by its tool's schema,
 * naming the rule and field. An MCP tool without a pinned definition cannot be checked: a note says so.
 */
export function checkRulesAgainstTools(policy: Policy, catalogue: PolicyToolCatalogue): { errors: Problem[]; notes: Problem[] } {
  const errors: Problem[] = [];
  const notes: Problem[] = [];
  const known = new Map(catalogue.tools.map((t) => [t.name, t]));
  for (const [toolName, toolPolicy] of Object.entries(policy.tools)) {
    const tool = known.get(toolName);
    if (!tool) {
      if (isUpstreamToolName(toolName)) {
        notes.push({
          path: `tools.${toolName}`,
          message: `No MCP tool named ${toolName} has an approved definition here, so the arguments its rules read are not checked (only ctx and tool are); they will be once an admin approves the tool under Admin → Upstream MCP servers.`,
        });
        continue;
      }
      const builtIns = catalogue.tools.filter((t) => !isUpstreamToolName(t.name)).map((t) => t.name);
      const guess = closest(toolName, builtIns);
      errors.push({
        path: `tools.${toolName}`,
        message: `There is no tool named ${toolName}${guess ? ` — did you mean ${guess}?` : "."} Its rules would never apply, and calls of the tool you meant would be denied as unlisted. Tools: ${builtIns.join(", ")}.`,
      });
      continue;
    }
    errors.push(...budgetArgumentErrors(policy, toolName, known));
    const schema = tool.inputSchema ? celArgSchema(tool.inputSchema) : null;
    const conditional = toolPolicy.rules.some((rule) => rule.when !== undefined);
    if (!schema) {
      if (conditional) {
        notes.push({ path: `tools.${toolName}`, message: `${toolName}'s input schema declares no argument fields, so the arguments its conditions read are not checked.` });
      }
      continue;
    }
    if (!conditional) continue;
    const env = typedArgsCelEnvironment(schema);
    toolPolicy.rules.forEach((rule, i) => {
      if (rule.when === undefined) return;
      const check = env.check(rule.when);
      if (check.valid) return;
      errors.push({ path: `tools.${toolName}.rules.${i}.when`, message: `Rule "${rule.id}": ${explain(check.error, toolName, schema)}` });
    });
  }
  return { errors, notes };
}

/** A budget sums an integer argument the counted tool has (a tool without a known schema is not checked). */
function budgetArgumentErrors(policy: Policy, toolName: string, known: ReadonlyMap<string, PolicyToolCatalogue["tools"][number]>): Problem[] {
  const errors: Problem[] = [];
  for (const term of policyBudgetTerms(policy, toolName)) {
    if (term.argument === null) continue;
    const counted = known.get(term.tool);
    const fields = counted?.inputSchema ? celArgSchema(counted.inputSchema) : null;
    if (!fields || fields[term.argument] === "int") continue;
    const i = policy.tools[toolName].rules.findIndex((rule) => rule.id === term.ruleId);
    const guess = closest(term.argument, Object.keys(fields).filter((k) => fields[k] === "int"));
    errors.push({
      path: `tools.${toolName}.rules.${i}.when`,
      message: `Rule "${term.ruleId}": a budget sums ${term.tool}.${term.argument}, which is not an integer argument of ${term.tool}${guess ? ` — did you mean ${guess}?` : "."} Its arguments: ${describe(fields)}.`,
    });
  }
  return errors;
}

function explain(error: unknown, toolName: string, schema: CelSchema): string {
  const raw = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
  const fields = describe(schema);
  const missing = /^No such key: (.+)$/.exec(raw);
  if (missing) {
    const guess = closest(missing[1], Object.keys(schema));
    return `args.${missing[1]} is not an argument of ${toolName}${guess ? ` — did you mean args.${guess}?` : "."} Its arguments: ${fields}.`;
  }
  return `does not type-check against ${toolName}'s arguments (${raw}). Its arguments: ${fields}.`;
}

function describe(schema: CelSchema): string {
  return Object.entries(schema).map(([k, v]) => `${k} (${typeof v === "string" ? v : "object"})`).join(", ");
}

/** The candidate within a small edit distance, or one that contains the name (amount → amount_minor). */
function closest(name: string, candidates: readonly string[]): string | null {
  let best: { c: string; d: number } | null = null;
  for (const c of candidates) {
    const d = distance(name.toLowerCase(), c.toLowerCase());
    if (d <= Math.max(2, Math.floor(name.length / 4)) && (!best || d < best.d)) best = { c, d };
  }
  if (best) return best.c;
  return candidates.find((c) => name.length >= 3 && (c.startsWith(name) || c.includes(name))) ?? null;
}

function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length];
}
