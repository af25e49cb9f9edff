import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { unsealedAuditEventSql } from "@/lib/db/statements/audit/read-unsealed-audit-events";

export type AuditLooseEnd = { eventId: bigint; at: Date; type: string; problem: "unsealed" | "quarantined"; reason: string | null };

/**
 * Events outside the tenant's tree: quarantined ones (MAC failed), and ones older than
 * `graceSeconds` never sealed, of transactions from `floor` on — the newest seal's, or "0" for a
 * full verification, the only one that finds a row whose transaction id was forged to hide it from
 * sealing. At most `limit`, oldest first, and the totals.
 */
export async function readAuditLooseEnds(
  q: Queryable,
  input: { tenantId: string; floor: string; graceSeconds: number; limit: number },
): Promise<{ rows: AuditLooseEnd[]; unsealed: number; quarantined: number }> {
  const tenant = Prisma.sql`${input.tenantId}::uuid`;

  const [row] = await query<{ rows: Array<Omit<AuditLooseEnd, "eventId" | "at"> & { eventId: string; at: string }> | null; unsealed: number; quarantined: number }>(q, Prisma.sql`
    WITH unsealed AS (
      SELECT e.id AS "eventId", e.at, e.type, 'unsealed' AS problem, NULL::text AS reason FROM "AuditEvent" e
      WHERE ${unsealedAuditEventSql(tenant, input.floor)} AND e.at < now() - make_interval(secs => ${input.graceSeconds})
    ),
    quarantined AS (
      SELECT q."eventId", e.at, e.type, 'quarantined' AS problem, q.reason FROM "AuditQuarantine" q JOIN "AuditEvent" e ON e.id = q."eventId"
      WHERE q."tenantId" = ${tenant}
    ),
    first AS (SELECT * FROM (SELECT * FROM unsealed UNION ALL SELECT * FROM quarantined) x ORDER BY "eventId" LIMIT ${input.limit})
    SELECT (SELECT jsonb_agg(jsonb_build_object('eventId', "eventId"::text, 'at', at, 'type', type, 'problem', problem, 'reason', reason)
        ORDER BY "eventId") FROM first) AS rows,
      (SELECT count(*)::int FROM unsealed) AS unsealed, (SELECT count(*)::int FROM quarantined) AS quarantined`, { prepare: false });
  const rows = (row.rows ?? []).map((r) => ({ ...r, eventId: BigInt(r.eventId), at: new Date(r.at) }));
  return { rows, unsealed: row.unsealed, quarantined: row.quarantined };
}
