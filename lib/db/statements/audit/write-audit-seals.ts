import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";

/** One event's leaf in its tenant's tree, carrying the tree's floor after this pass. */
export type AuditSealRow = { tenantId: string; floor: string; eventId: string; seq: string; leafHash: string; nodes: string[]; mac: string };

/**
 * Seals events of any number of tenants in one statement: their AuditSeal rows (continuing each
 * tree from its head, in order, each carrying its tree's floor) and the quarantine of events whose
 * MAC did not verify. Run it while lockAuditTrees holds every tree it writes to.
 */
export async function writeAuditSeals(
  conn: SqlClient,
  input: { seals: AuditSealRow[]; quarantined: Array<{ tenantId: string; eventId: string; reason: string }> },
): Promise<void> {
  if (input.seals.length === 0 && input.quarantined.length === 0) return;
  await query(conn, Prisma.sql`
    WITH sealed AS (
      INSERT INTO "AuditSeal" ("eventId", "tenantId", seq, "leafHash", nodes, mac, floor)
      SELECT v."eventId", v."tenantId", v.seq, v."leafHash", v.nodes, v.mac, v.floor::xid8
      FROM jsonb_to_recordset(${JSON.stringify(input.seals)}::jsonb)
        AS v("tenantId" uuid, floor text, "eventId" bigint, seq bigint, "leafHash" text, nodes text[], mac text)
    )
    INSERT INTO "AuditQuarantine" ("eventId", "tenantId", reason)
    SELECT v."eventId", v."tenantId", v.reason
    FROM jsonb_to_recordset(${JSON.stringify(input.quarantined)}::jsonb) AS v("tenantId" uuid, "eventId" bigint, reason text)`);
}
