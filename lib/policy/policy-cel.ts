import { Environment } from "@marcbachmann/cel-js";
import type { JsonValue } from "@/lib/canonical/json-value";
import { emailRecipientsIn } from "@/lib/risk/email-recipients";
import { isIpLiteral } from "@/lib/risk/ip-literal";
import { BudgetTotals, BudgetWindow, budgetTotal, type BudgetScope } from "./policy-budgets";

/**
 * What rules may read from `ctx`, with CEL types, filled from the database and lib/risk. A field
 * not supplied fails safe (evaluatePolicy); lists default to [] so `in` simply fails to match.
 */
export const POLICY_CONTEXT_FIELDS = {
  requesterRoles: "list<string>",
  amountMinor: "int",
  recipientDomain: "string",
  customerVerifiedDomains: "list<string>",
  tenantDomains: "list<string>",
  riskLevel: "string",
  riskTags: "list<string>",
} as const;

/** Helper functions available to `when` expressions, documented for the admin UI. */
export const POLICY_CEL_FUNCTIONS = {
  "emailDomains(map): list<string>":
    "Lower-cased domains of every address under a recipient-like key of args (to, cc, bcc, recipient(s), email…).",
  "isIpLiteral(string): bool": "True when a host or mail domain is an IP address in any spelling (dotted, decimal, hex, IPv6, [..]).",
  'budget.window("24h").sum(tool, argument, by): int':
    "Sum of an integer argument of the tool's calls in the window that ran, are approved or wait for review, by the same key, task, requester or tenant (by: \"key\", \"task\", \"requester\", \"tenant\"). Literal arguments only.",
  'budget.window("24h").count(tool, by): int': "Number of the tool's calls in the window that ran, are approved or wait for review, by the same key, task, requester or tenant.",
} as const;

// Building an Environment is the expensive part of cel-js: the part every condition shares is
// built once, and each use clones it (clone() freezes the parent, so nothing leaks between them).
const commonEnvironment = new Environment({
  limits: { maxAstNodes: 500, maxDepth: 32, maxListElements: 200, maxMapEntries: 100, maxCallArguments: 8 },
})
  .registerVariable("tool", "string")
  .registerVariable({ name: "ctx", schema: { ...POLICY_CONTEXT_FIELDS } })
  .registerFunction("isIpLiteral(string): bool", (host: unknown) => typeof host === "string" && isIpLiteral(host))
  // Budgets (policy-budgets.ts): the totals are read before the rules run and passed as `budget`.
  .registerType("Budget", BudgetTotals)
  .registerType("BudgetWindow", BudgetWindow)
  .registerVariable("budget", "Budget")
  .registerFunction("Budget.window(string): BudgetWindow", (b: BudgetTotals, window: string) => new BudgetWindow(b, window))
  .registerFunction("BudgetWindow.sum(string, string, string): int", (w: BudgetWindow, tool: string, argument: string, by: string) =>
    budgetTotal(w, { measure: "sum", tool, argument, by: by as BudgetScope, window: w.window }))
  .registerFunction("BudgetWindow.count(string, string): int", (w: BudgetWindow, tool: string, by: string) =>
    budgetTotal(w, { measure: "count", tool, argument: null, by: by as BudgetScope, window: w.window }));

const emailDomains = (args: unknown) => {
  const domains = emailRecipientsIn(fromCelValue(args), { commsKeys: true }).map((r) => r.domain);
  return [...new Set(domains)];
};

/** The environment conditions are compiled and evaluated in: `args` is an untyped map. */
export const policyCelEnvironment = commonEnvironment
  .clone()
  .registerVariable("args", "map")
  .registerFunction("emailDomains(map): list<string>", emailDomains);

/**
 * A CEL field schema (cel-js `schema`): field name → CEL type, or a nested schema for an object
 * whose fields are known.
 */
export type CelSchema = { [field: string]: string | CelSchema };

/**
 * An environment for type-checking (not evaluating) a tool's conditions, with `args` typed by
 * the tool's argument schema: reading a field the tool does not have, or comparing one with a
 * value of another type, fails the check.
 */
export function typedArgsCelEnvironment(args: CelSchema) {
  return commonEnvironment
    .clone()
    .registerType({ name: "ToolArgs", schema: args })
    .registerVariable("args", "ToolArgs")
    .registerFunction("emailDomains(ToolArgs): list<string>", emailDomains);
}

/**
 * JSON → CEL: integers become `int` (BigInt) so `args.amount_minor > 100000` is an
 * exact integer comparison and `/` is integer division; other numbers are `double`.
 */
export function toCelValue(v: JsonValue): unknown {
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(toCelValue);
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, child]) => [k, toCelValue(child)]));
  }
  return v;
}

/** CEL → JSON-ish, for helper functions that reuse lib/risk's JSON walkers. */
function fromCelValue(v: unknown): JsonValue {
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean" || v === null) return v;
  if (Array.isArray(v)) return v.map(fromCelValue);
  if (v instanceof Map) {
    const out: Record<string, JsonValue> = {};
    for (const [k, child] of v) if (typeof k === "string") out[k] = fromCelValue(child);
    return out;
  }
  if (typeof v === "object" && v !== undefined) {
    const out: Record<string, JsonValue> = {};
    for (const [k, child] of Object.entries(v)) out[k] = fromCelValue(child);
    return out;
  }
  return null;
}
