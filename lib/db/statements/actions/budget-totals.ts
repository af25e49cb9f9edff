import { query, type Queryable } from "@/lib/db/sql";
import { Prisma } from "@/lib/generated/prisma/client";

/**
 * The statuses that spend a budget: what ran or may have run (`executing`, `succeeded`,
 * `unknown`) and what is reserved (`approved`, `pending`). Refused, rejected, expired, cancelled,
 * invalidated and failed actions release what they held.
 */
const SPENDING_STATUSES = ["pending", "approved", "executing", "succeeded", "unknown"] as const;

/**
 * Takes the budgets' locks (transaction-scoped advisory locks, one per key, in key order so two
 * transactions never wait for each other). Its own statement: the totals must be read by a later
 * one, whose snapshot sees every spend committed before the lock was granted.
 */
export async function lockBudgets(q: Queryable, lockKeys: readonly string[]): Promise<void> {
  const keys = [...new Set(lockKeys)].sort();
  if (keys.length === 0) return;
  await query(q, Prisma.sql`
    SELECT count(pg_advisory_xact_lock(hashtextextended('countersign.budget:' || k, 0)))
    FROM (SELECT k FROM unnest(${keys}::text[]) AS k ORDER BY k) keys`);
}

/**
 * One running total to read: `argument` null counts the tool's actions, otherwise sums that
 * integer argument of each action's current revision. The scope is the requesting key, else the
 * requesting member (without a key), else the task; all null: the whole tenant.
 */
export type BudgetTotalQuery = {
  id: string;
  windowSeconds: number;
  tool: string;
  argument: string | null;
  apiKeyId: string | null;
  userId: string | null;
  taskId: string | null;
  /** A replay (the policy editor's dry run): the total as of this moment, not now. */
  asOf?: string;
};

type TotalsInput = { tenantId: string; excludeActionId: string | null; totals: BudgetTotalQuery[]; replay?: boolean };

/** The totals by query id, as exact decimal strings; `excludeActionId` (a revision's own action) is not counted. */
export async function readBudgetTotals(q: Queryable, input: TotalsInput): Promise<Map<string, string>> {
  return (await readBudgetTotalsAndGrantsVersion(q, input)).totals;
}

/**
 * The totals, and the tenant's standing grants version as the same snapshot sees it (null: no
 * totals read): the budget path sends back a call assessed under older grants before counting it.
 */
export async function readBudgetTotalsAndGrantsVersion(q: Queryable, input: TotalsInput): Promise<{ totals: Map<string, string>; grantsVersion: number | null }> {
  if (input.totals.length === 0) return { totals: new Map(), grantsVersion: null };
  // A replay counts, before each recorded moment, every call that was not refused outright: what
  // was reserved then, as far as the record still says (a later rejection or expiry is not undone).
  const until = input.replay ? Prisma.sql`COALESCE(t."asOf", now())` : Prisma.sql`now()`;
  const counted = input.replay
    ? Prisma.sql`a.status <> 'denied' AND a."createdAt" < ${until}`
    : Prisma.sql`a.status::text = ANY(${[...SPENDING_STATUSES]}::text[])`;
  const rows = await query<{ id: string; total: string; grantsVersion: number }>(q, Prisma.sql`
    SELECT t.id, (SELECT tn."grantsVersion" FROM "Tenant" tn WHERE tn.id = ${input.tenantId}::uuid) AS "grantsVersion", (
      SELECT COALESCE(sum(CASE
        WHEN t.argument IS NULL THEN 1
        WHEN jsonb_typeof(r.args -> t.argument) = 'number' THEN trunc((r.args ->> t.argument)::numeric)
        ELSE 0 END), 0)::text
      FROM "Action" a
      JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision"
      WHERE a."tenantId" = ${input.tenantId}::uuid AND a.tool = t.tool
        AND a."createdAt" > ${until} - make_interval(secs => t."windowSeconds")
        AND ${counted}
        AND a.id IS DISTINCT FROM ${input.excludeActionId}::uuid
        AND (t."apiKeyId" IS NULL OR a."requesterApiKeyId" = t."apiKeyId")
        AND (t."userId" IS NULL OR (a."requesterUserId" = t."userId" AND a."requesterApiKeyId" IS NULL))
        AND (t."taskId" IS NULL OR a."taskId" = t."taskId")
    ) AS total
    FROM jsonb_to_recordset(${JSON.stringify(input.totals)}::jsonb)
      AS t(id text, "windowSeconds" int, tool text, argument text, "apiKeyId" uuid, "userId" uuid, "taskId" uuid, "asOf" timestamptz)`);
  return { totals: new Map(rows.map((row) => [row.id, row.total])), grantsVersion: rows[0]?.grantsVersion ?? null };
}
