import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import { query, type SqlClient } from "@/lib/db/sql";

export type UnsealedAuditEvent = {
  id: bigint; tenantId: string; at: Date; uid: string; mac: string | null; macOmits: string[];
  actorType: string; actorId: string | null; actorLabel: string; type: string;
  outcome: string; subjectType: string; subjectId: string | null; actionId: string | null; tool: string | null;
  verdict: string | null; riskLevel: string | null; reviewerId: string | null; requester: string | null;
  status: string | null; data: unknown;
};

/**
 * The condition "event `e` of tenant `tenant` is not yet in the tree": neither sealed nor
 * quarantined, written by a transaction no older than the floor on the tenant's newest seal
 * (every transaction older than it had finished when sealing last caught up, and its events
 * were sealed then). An index on (tenantId, xid) keeps this to the recent events.
 */
export function unsealedAuditEventSql(tenant: Sql): Sql {
  return Prisma.sql`e."tenantId" = ${tenant}
    AND e.xid >= COALESCE((SELECT s.floor FROM "AuditSeal" s WHERE s."tenantId" = ${tenant} ORDER BY s.seq DESC LIMIT 1), '0'::xid8)
    AND NOT EXISTS (SELECT 1 FROM "AuditSeal" s WHERE s."eventId" = e.id)
    AND NOT EXISTS (SELECT 1 FROM "AuditQuarantine" q WHERE q."eventId" = e.id)`;
}

/** The tenant's events not yet in its tree, in the order they were written (by id). */
export async function readUnsealedAuditEvents(tx: SqlClient, input: { tenantId: string; limit: number }): Promise<UnsealedAuditEvent[]> {
  return query<UnsealedAuditEvent>(tx, Prisma.sql`
    SELECT e.id, e."tenantId", e.at, e.uid, e.mac, e."macOmits", e."actorType", e."actorId", e."actorLabel", e.type, e.outcome,
      e."subjectType", e."subjectId", e."actionId", e.tool, e.verdict::text AS verdict, e."riskLevel"::text AS "riskLevel",
      e."reviewerId", e.requester, e.status, e.data
    FROM "AuditEvent" e
    WHERE ${unsealedAuditEventSql(Prisma.sql`${input.tenantId}::uuid`)}
    ORDER BY e.id LIMIT ${input.limit}`);
}
