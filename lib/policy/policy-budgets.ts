import type { ASTNode } from "@marcbachmann/cel-js";
import { parsePolicyDuration } from "./policy-duration";

/**
 * Budgets: a rule's condition reads running totals over a window through the `budget` variable,
 * `budget.window("24h").sum("refund_invoice", "amount_minor", "key")` or
 * `budget.window("1h").count("send_email", "task")`. Every argument is a literal, so the totals a
 * tool's rules read are known when the policy compiles, and read (under their locks) before the
 * rules run (docs/DESIGN.md, "Budgets").
 */
export const BUDGET_SCOPES = ["key", "task", "requester", "tenant"] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];

/** The longest window a budget may read (the totals query's index range stays bounded). */
export const BUDGET_WINDOW_MAX_SECONDS = 31 * 86_400;

export type BudgetTerm = {
  window: string;
  windowSeconds: number;
  measure: "count" | "sum";
  tool: string;
  /** `sum` only: the integer argument summed (e.g. amount_minor). */
  argument: string | null;
  by: BudgetScope;
};

/** A term as read by one rule, with the integer it is compared with there, if the rule says one. */
export type RuleBudgetTerm = BudgetTerm & { limit: number | null };

/** The key a term's total is stored under in BudgetTotals (and in the JSON crossing to the compute pool). */
export function budgetTermKey(t: BudgetTerm): string {
  return t.measure === "sum" ? `${t.windowSeconds}|sum|${t.tool}|${t.argument}|${t.by}` : `${t.windowSeconds}|count|${t.tool}|${t.by}`;
}

/** Totals by budgetTermKey, as decimal strings (sums are exact integers). */
export type BudgetTotalsInput = Record<string, string>;

/** The value of `budget` in a condition: the totals read for this call. */
export class BudgetTotals {
  constructor(readonly totals: BudgetTotalsInput | undefined) {}
}

/** The value of `budget.window(w)`. */
export class BudgetWindow {
  constructor(readonly totals: BudgetTotals, readonly window: string) {}
}

/** `BudgetWindow.sum/count`: the total read for the term, or an error (the rule fails closed) when none was read. */
export function budgetTotal(w: BudgetWindow, term: Omit<BudgetTerm, "windowSeconds">): bigint {
  const windowSeconds = parsePolicyDuration(w.window);
  if (windowSeconds === null) throw new Error(`budget window "${w.window}" is not a duration`);
  const key = budgetTermKey({ ...term, windowSeconds });
  const total = w.totals.totals?.[key];
  if (total === undefined) throw new Error(`the budget total ${describeBudgetTerm({ ...term, windowSeconds })} was not read`);
  return BigInt(total);
}

export function describeBudgetTerm(t: BudgetTerm): string {
  const what = t.measure === "sum" ? `sum of ${t.tool}.${t.argument}` : `count of ${t.tool}`;
  return `${what} over ${t.window} by ${t.by}`;
}

const SHAPE = 'budget.window("24h").sum("tool", "argument", "key|task|requester|tenant") or budget.window("24h").count("tool", "key|task|requester|tenant")';

type Found = { terms: RuleBudgetTerm[]; errors: string[] };

/**
 * The budget terms a condition reads, or why its use of `budget` is malformed: only the shape
 * above, with literal arguments, a window of at most 31 days, a known scope and a tool the policy
 * lists (`tools`).
 */
export function budgetTermsIn(ast: ASTNode, tools: ReadonlySet<string> | null): Found {
  const found: Found = { terms: [], errors: [] };
  walk(ast, null, found, tools);
  return found;
}

function walk(node: ASTNode, comparedWith: bigint | null, found: Found, tools: ReadonlySet<string> | null): void {
  switch (node.op) {
    case "id":
      if (node.args === "budget") found.errors.push(`budget can only be read as ${SHAPE}.`);
      return;
    case "value":
      return;
    case "rcall": {
      const [name, receiver, callArgs] = node.args;
      if ((name === "sum" || name === "count") && receiver.op === "rcall" && receiver.args[0] === "window" && isBudget(receiver.args[1])) {
        const term = termOf(name, receiver.args[2], callArgs, found.errors, tools);
        if (term) found.terms.push({ ...term, limit: comparedWith === null ? null : safeLimit(comparedWith) });
        return;
      }
      if (name === "window" && isBudget(receiver)) {
        found.errors.push(`budget.window(...) must be followed by .sum(tool, argument, by) or .count(tool, by): use ${SHAPE}.`);
        return;
      }
      walk(receiver, null, found, tools);
      for (const a of callArgs) walk(a, null, found, tools);
      return;
    }
    default: {
      // A comparison with an integer literal names the budget's limit (shown to reviewers and agents).
      const isComparison = node.op === ">" || node.op === ">=" || node.op === "<" || node.op === "<=";
      const children = childrenOf(node);
      if (isComparison && children.length === 2) {
        const [left, right] = children;
        walk(left, intLiteral(right) ?? comparedWith, found, tools);
        walk(right, intLiteral(left) ?? comparedWith, found, tools);
        return;
      }
      // Inside arithmetic the comparison still bounds the total; anything else does not.
      const keeps = node.op === "+" || node.op === "-";
      for (const child of children) walk(child, keeps ? comparedWith : null, found, tools);
    }
  }
}

function isBudget(node: ASTNode): boolean {
  return node.op === "id" && node.args === "budget";
}

function intLiteral(node: ASTNode): bigint | null {
  return node.op === "value" && typeof node.args === "bigint" ? node.args : null;
}

function safeLimit(n: bigint): number | null {
  return n <= BigInt(Number.MAX_SAFE_INTEGER) && n >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(n) : null;
}

function childrenOf(node: ASTNode): ASTNode[] {
  const out: ASTNode[] = [];
  const visit = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (typeof v === "object" && v !== null && "op" in v) out.push(v as ASTNode);
  };
  visit(node.args);
  return out;
}

function termOf(measure: "sum" | "count", windowArgs: ASTNode[], callArgs: ASTNode[], errors: string[], tools: ReadonlySet<string> | null): BudgetTerm | null {
  const strings = (nodes: ASTNode[]) => nodes.map((n) => (n.op === "value" && typeof n.args === "string" ? n.args : null));
  const [window] = strings(windowArgs);
  const literal = strings(callArgs);
  if (windowArgs.length !== 1 || window === null || window === undefined || literal.some((s) => s === null)) {
    errors.push(`every argument of a budget must be a string literal: ${SHAPE}.`);
    return null;
  }
  const expected = measure === "sum" ? 3 : 2;
  if (literal.length !== expected) {
    errors.push(`budget .${measure}() takes ${expected} arguments: ${SHAPE}.`);
    return null;
  }
  const [tool, ...rest] = literal as string[];
  const argument = measure === "sum" ? rest[0] : null;
  const by = rest[rest.length - 1];
  const windowSeconds = parsePolicyDuration(window);
  let ok = true;
  if (windowSeconds === null || windowSeconds > BUDGET_WINDOW_MAX_SECONDS) {
    errors.push(`budget window "${window}" must be a duration like 1h, 24h or 7d, at most 31d.`);
    ok = false;
  }
  if (!(BUDGET_SCOPES as readonly string[]).includes(by)) {
    errors.push(`budget scope "${by}" must be one of ${BUDGET_SCOPES.join(", ")}.`);
    ok = false;
  }
  if (tools !== null && !tools.has(tool)) {
    errors.push(`budget counts the tool "${tool}", which the policy does not list.`);
    ok = false;
  }
  if (argument !== null && !/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(argument)) {
    errors.push(`budget sums "${argument}", which is not an argument name.`);
    ok = false;
  }
  if (!ok || windowSeconds === null) return null;
  return { window, windowSeconds, measure, tool, argument, by: by as BudgetScope };
}
