import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import { query, type SqlClient } from "@/lib/db/sql";

export type UnsealedAuditEvent = {
  /** The writing transaction (xid8, as text). */
  xid: string;
  id: bigint; tenantId: string; at: Date; uid: string; mac: string | null; macOmits: string[];
  actorType: string; actorId: string | null; actorLabel: string; type: string;
  outcome: string; subjectType: string; subjectId: string | null; actionId: string | null; tool: string | null;
  verdict: string | null; riskLevel: string | null; reviewerId: string | null; requester: string | null;
  status: string | null; data: unknown;
  /** Another event with this uid that is sealed, or written before this one (lower id): this one is its copy. */
  sameUidAs: bigint | null;
};

/**
 * The condition "event `e` of tenant `tenant` is not yet in the tree": neither sealed nor
 * quarantined, written by a transaction no older than `floor`. Every visible event of a
 * transaction older than the floor on the tenant's newest seal is sealed
 * (lib/audit/seal-audit-chain.ts), so with that floor the (tenantId, xid) index keeps this to
 * recent events. The two NOT EXISTS carry `OFFSET 0` so PostgreSQL keeps them as one index probe
 * per candidate: turned into anti-joins, a plan that overestimates the candidates (a histogram
 * bucket holds thousands of events) hashes every seal of the tenant instead (~40 ms at 1,000,000).
 */
export function unsealedAuditEventSql(tenant: Sql, floor: string | Sql): Sql {
  return Prisma.sql`e."tenantId" = ${tenant}
    AND e.xid >= ${floor}::xid8
    AND NOT EXISTS (SELECT 1 FROM "AuditSeal" s WHERE s."eventId" = e.id OFFSET 0)
    AND NOT EXISTS (SELECT 1 FROM "AuditQuarantine" q WHERE q."eventId" = e.id OFFSET 0)`;
}

/**
 * For event `e`: another event with its uid that is sealed, or was written before it (lower id) —
 * `e` is then its copy — or null. `OFFSET 0` keeps the EXISTS one index probe per row (PostgreSQL
 * would otherwise hash every seal of every tenant for the OR).
 */
export const sameUidAsSql = Prisma.sql`(SELECT o.id FROM "AuditEvent" o
  WHERE o.uid = e.uid AND o.id <> e.id AND (o.id < e.id OR EXISTS (SELECT 1 FROM "AuditSeal" s WHERE s."eventId" = o.id OFFSET 0))
  ORDER BY o.id LIMIT 1)`;

/**
 * The tenant's events not yet in its tree from `floor` on, by writing transaction (then id), so
 * sealing can move its floor past what it has sealed while a backlog lasts. Each comes with
 * `sameUidAs`: the console gives every event its own uid and the MAC covers it, so a second row
 * with a uid is a copy (a replay, once the owner drops the unique index) — read here, in the
 * sealing transaction, from the rows as they are now, not from the index.
 */
export async function readUnsealedAuditEvents(tx: SqlClient, input: { tenantId: string; floor: string; limit: number }): Promise<UnsealedAuditEvent[]> {
  return query<UnsealedAuditEvent>(tx, Prisma.sql`
    SELECT e.xid::text AS xid, e.id, e."tenantId", e.at, e.uid, e.mac, e."macOmits", e."actorType", e."actorId", e."actorLabel", e.type, e.outcome,
      e."subjectType", e."subjectId", e."actionId", e.tool, e.verdict::text AS verdict, e."riskLevel"::text AS "riskLevel",
      e."reviewerId", e.requester, e.status, e.data, ${sameUidAsSql} AS "sameUidAs"
    FROM "AuditEvent" e
    WHERE ${unsealedAuditEventSql(Prisma.sql`${input.tenantId}::uuid`, input.floor)}
    ORDER BY e.xid, e.id LIMIT ${input.limit}`, { prepare: false });
}
