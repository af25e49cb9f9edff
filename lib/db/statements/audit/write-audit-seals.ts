import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";

/** One event's leaf in its tenant's tree. */
export type AuditSealRow = { eventId: bigint; seq: bigint; leafHash: string; nodes: string[]; mac: string };

/**
 * Seals events in one statement: their AuditSeal rows (continuing the tree from its head, in
 * order, each carrying `floor`) and the quarantine of events whose MAC did not verify. Run it in
 * the transaction that holds `lockAuditTree`.
 */
export async function writeAuditSeals(
  tx: SqlClient,
  input: { tenantId: string; floor: string; seals: AuditSealRow[]; quarantined: Array<{ eventId: bigint; reason: string }> },
): Promise<void> {
  if (input.seals.length === 0 && input.quarantined.length === 0) return;
  const seals = input.seals.map((s) => ({ eventId: s.eventId.toString(), seq: s.seq.toString(), leafHash: s.leafHash, nodes: s.nodes, mac: s.mac }));
  const quarantined = input.quarantined.map((q) => ({ eventId: q.eventId.toString(), reason: q.reason }));
  await query(tx, Prisma.sql`
    WITH sealed AS (
      INSERT INTO "AuditSeal" ("eventId", "tenantId", seq, "leafHash", nodes, mac, floor)
      SELECT v."eventId", ${input.tenantId}::uuid, v.seq, v."leafHash", v.nodes, v.mac, ${input.floor}::xid8
      FROM jsonb_to_recordset(${JSON.stringify(seals)}::jsonb) AS v("eventId" bigint, seq bigint, "leafHash" text, nodes text[], mac text)
    )
    INSERT INTO "AuditQuarantine" ("eventId", "tenantId", reason)
    SELECT v."eventId", ${input.tenantId}::uuid, v.reason
    FROM jsonb_to_recordset(${JSON.stringify(quarantined)}::jsonb) AS v("eventId" bigint, reason text)`);
}
