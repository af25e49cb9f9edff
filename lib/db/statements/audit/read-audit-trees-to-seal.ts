import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";
import { sameUidAsSql, unsealedAuditEventSql } from "@/lib/db/statements/audit/read-unsealed-audit-events";

/** An event not yet in its tenant's tree, as sealing reads it (ids and xids as text: it may cross to a thread). */
export type EventToSeal = {
  xid: string; id: string; tenantId: string; at: string; uid: string; mac: string | null; macOmits: string[];
  actorType: string; actorId: string | null; actorLabel: string; type: string; outcome: string;
  subjectType: string; subjectId: string | null; actionId: string | null; tool: string | null;
  verdict: string | null; riskLevel: string | null; reviewerId: string | null; requester: string | null;
  status: string | null; data: unknown;
  /** Another event with this uid that is sealed, or written before this one (lower id): this one is its copy. */
  sameUidAs: string | null;
};

/** One tenant's tree as read under its lock: its size, the perfect subtrees of its frontier, and the events to add. */
export type TreeToSeal = {
  tenantId: string;
  size: string;
  subtrees: Array<{ seq: string; leafHash: string; nodes: string[] }>;
  events: EventToSeal[];
};

export type TreeRead = TreeToSeal & {
  /** The floor on the tree's newest seal (xid8 as text, "0" for an empty tree). */
  floor: string;
  /** The oldest transaction still running when this was read (xid8 as text). */
  xmin: string;
};

/**
 * Each tenant's tree as sealing needs it, in one statement run after lockAuditTrees: its head
 * (size and the floor on its newest seal), the perfect subtrees of its frontier (those ending at
 * each prefix of its size's binary digits, lib/audit/transparency/merkle.ts's coveringNodes), the
 * oldest transaction running now, and up to `limit` of its events not yet in the tree from that
 * floor on, by writing transaction then id (read-unsealed-audit-events.ts: every visible event of
 * an older transaction is sealed). Each event comes with `sameUidAs`: another event with its uid
 * that is sealed or was written before it (lower id), so this one is its copy — read from the rows
 * as they are now, not from the unique index an owner may drop.
 */
export async function readAuditTreesToSeal(conn: SqlClient, input: { tenantIds: string[]; limit: number }): Promise<TreeRead[]> {
  const size = Prisma.sql`COALESCE(h.seq, 0)`;
  const rows = await query<{ tenantId: string; size: string; floor: string; xmin: string; subtrees: TreeToSeal["subtrees"]; events: EventToSeal[] }>(conn, Prisma.sql`
    SELECT t.id::text AS "tenantId", ${size}::text AS size, COALESCE(h.floor, '0'::xid8)::text AS floor,
      pg_snapshot_xmin(pg_current_snapshot())::text AS xmin,
      (SELECT COALESCE(json_agg(json_build_object('seq', s.seq::text, 'leafHash', s."leafHash", 'nodes', s.nodes)), '[]'::json)
        FROM generate_series(0, 62) AS b(bit)
        -- One probe of (tenantId, seq) per binary digit of the size.
        CROSS JOIN LATERAL (
          SELECT s.seq, s."leafHash", s.nodes FROM "AuditSeal" s WHERE s."tenantId" = t.id AND s.seq = (${size} >> b.bit) << b.bit LIMIT 1
        ) s
        WHERE (${size} >> b.bit) & 1 = 1) AS subtrees,
      (SELECT COALESCE(json_agg(json_build_object(
          'xid', e.xid::text, 'id', e.id::text, 'tenantId', e."tenantId", 'at', e.at, 'uid', e.uid, 'mac', e.mac, 'macOmits', e."macOmits",
          'actorType', e."actorType", 'actorId', e."actorId", 'actorLabel', e."actorLabel", 'type', e.type, 'outcome', e.outcome,
          'subjectType', e."subjectType", 'subjectId', e."subjectId", 'actionId', e."actionId", 'tool', e.tool, 'verdict', e.verdict,
          'riskLevel', e."riskLevel", 'reviewerId', e."reviewerId", 'requester', e.requester, 'status', e.status, 'data', e.data,
          'sameUidAs', ${sameUidAsSql}::text
        ) ORDER BY e.xid, e.id), '[]'::json)
        FROM (
          SELECT e.* FROM "AuditEvent" e
          WHERE ${unsealedAuditEventSql(Prisma.sql`t.id`, Prisma.sql`COALESCE(h.floor, '0'::xid8)`)}
          ORDER BY e.xid, e.id LIMIT ${input.limit}
        ) e) AS events
    FROM (SELECT DISTINCT u.id FROM unnest(${input.tenantIds}::uuid[]) AS u(id)) t
    LEFT JOIN LATERAL (SELECT s.seq, s.floor FROM "AuditSeal" s WHERE s."tenantId" = t.id ORDER BY s.seq DESC LIMIT 1) h ON true`);
  return rows;
}
