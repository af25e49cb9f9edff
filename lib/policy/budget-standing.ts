import type { BudgetLine } from "./evaluate-policy";
import type { BudgetScope } from "./policy-budgets";

/** A budget as agents are told it: the total in the window with this call (if it counts), the limit and what is left. */
export type BudgetStanding = {
  window: string;
  measure: "count" | "sum";
  tool: string;
  argument: string | null;
  by: BudgetScope;
  used: number;
  limit: number | null;
  remaining: number | null;
};

export function budgetStanding(line: BudgetLine): BudgetStanding {
  return {
    window: line.window, measure: line.measure, tool: line.tool, argument: line.argument, by: line.by,
    used: line.usedAfter, limit: line.limit, remaining: line.limit === null ? null : Math.max(0, line.limit - line.usedAfter),
  };
}

const BY_WORDS: Record<BudgetScope, string> = { key: "this key", task: "this task", requester: "this requester", tenant: "the organisation" };

/** An amount as people read it: minor units (`*_minor`) as 850.00, anything else as a whole number. */
function amount(n: number, argument: string | null): string {
  if (argument !== null && /_minor$/.test(argument)) {
    const sign = n < 0 ? "-" : "";
    const abs = Math.abs(n);
    return `${sign}${Math.floor(abs / 100).toLocaleString("en-US")}.${String(abs % 100).padStart(2, "0")}`;
  }
  return n.toLocaleString("en-US");
}

/**
 * One line for reviewers and agents: "last 24h: 850.00 of 1,000.00 used by this key" (this call
 * included when it counts); the tool is named when it is not the action's own (`ownTool`).
 */
export function describeBudgetLine(line: BudgetLine, ownTool: string): string {
  const of = line.limit === null ? "" : ` of ${amount(line.limit, line.argument)}`;
  const what = line.measure === "count"
    ? ` ${line.tool} call${line.usedAfter === 1 && line.limit === null ? "" : "s"}`
    : line.tool === ownTool ? "" : ` (${line.tool}.${line.argument})`;
  return `last ${line.window}: ${amount(line.usedAfter, line.argument)}${of}${what} used by ${BY_WORDS[line.by]}`;
}
