import { query, type Queryable } from "@/lib/db/sql";
import { Prisma } from "@/lib/generated/prisma/client";

/**
 * The statuses that spend a budget: what ran or may have run (`executing`, `succeeded`,
 * `unknown`) and what is reserved (`approved`, `pending`). Refused, rejected, expired, cancelled,
 * invalidated and failed actions release what they held.
 */
export const SPENDING_STATUSES = ["pending", "approved", "executing", "succeeded", "unknown"] as const;

/**
 * One running total to read: `argument` null counts the tool's actions, otherwise sums that
 * integer argument of each action's current revision. The scope is the requesting key, else the
 * requesting member (without a key), else the task; all null: the whole tenant.
 */
export type BudgetTotalQuery = {
  id: string;
  tenantId: string;
  windowSeconds: number;
  tool: string;
  argument: string | null;
  apiKeyId: string | null;
  userId: string | null;
  taskId: string | null;
  /** A replay (the policy editor's dry run): the total as of this moment, not now. */
  asOf?: string;
};

/**
 * What a `budget_totals` call reads (prisma/migrations/…_budget_totals_function): the locks it takes
 * first (none: a read that judges nothing), the actions it does not count, and the totals.
 */
export type BudgetRead = { lockKeys: readonly string[]; exclude: readonly string[]; totals: BudgetTotalQuery[]; replay?: boolean };

/**
 * The function call, as an SQL fragment: the one place the budgets' locks are taken and their
 * totals summed. The function is VOLATILE, so its totals see every spend committed before its locks
 * were granted, even inside a statement that began before them (write-proposals.ts relies on it).
 */
export function budgetTotalsSql(read: BudgetRead): Prisma.Sql {
  return Prisma.sql`budget_totals(${[...read.lockKeys]}::text[], ${[...SPENDING_STATUSES]}::text[], ${[...read.exclude]}::uuid[],
    ${read.replay === true}::boolean, ${JSON.stringify(read.totals)}::jsonb)`;
}

/**
 * Takes the budgets' locks (transaction-scoped: held to the commit) and reads the totals in one
 * statement, for a revision written later in the same transaction.
 */
export async function readLockedBudgetTotals(q: Queryable, read: BudgetRead): Promise<Map<string, string>> {
  if (read.totals.length === 0 && read.lockKeys.length === 0) return new Map();
  const rows = await query<{ id: string; total: string }>(q, Prisma.sql`SELECT b.id, b.total::text AS total FROM ${budgetTotalsSql(read)} b`);
  return new Map(rows.map((row) => [row.id, row.total]));
}

/** The totals by query id, as exact decimal strings, taking no lock. */
export async function readBudgetTotals(q: Queryable, read: Omit<BudgetRead, "lockKeys">): Promise<Map<string, string>> {
  return (await readBudgetTotalsAndGrantsVersions(q, read)).totals;
}

/**
 * The totals, taking no lock, and each tenant's standing grants version as the same statement sees
 * it: the budget path sends back a call assessed under older grants before counting it.
 */
export async function readBudgetTotalsAndGrantsVersions(
  q: Queryable,
  read: Omit<BudgetRead, "lockKeys">,
): Promise<{ totals: Map<string, string>; grantsVersions: Map<string, number> }> {
  if (read.totals.length === 0) return { totals: new Map(), grantsVersions: new Map() };
  const tenantIds = [...new Set(read.totals.map((t) => t.tenantId))];
  const rows = await query<{ id: string; total: string | null; grantsVersion: number | null }>(q, Prisma.sql`
    SELECT b.id, b.total::text AS total, NULL::int AS "grantsVersion" FROM ${budgetTotalsSql({ ...read, lockKeys: [] })} b
    UNION ALL
    SELECT tn.id::text, NULL, tn."grantsVersion" FROM "Tenant" tn WHERE tn.id = ANY(${tenantIds}::uuid[])`);
  const totals = new Map<string, string>();
  const grantsVersions = new Map<string, number>();
  for (const row of rows) {
    if (row.grantsVersion !== null) grantsVersions.set(row.id, row.grantsVersion);
    else totals.set(row.id, row.total ?? "0");
  }
  return { totals, grantsVersions };
}
