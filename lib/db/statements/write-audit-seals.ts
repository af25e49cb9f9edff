import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";

/** One event's place in its tenant's chain. */
export type AuditSealRow = { eventId: bigint; seq: bigint; prevHash: string; hash: string };

/**
 * Seals events in one statement: their AuditSeal rows, their removal from the AuditUnsealed
 * queue, and the tenant's head moved to the last seal (its `at` never moves back; `lastAt` is
 * the latest `at` among the events). `seals` continue the chain from the head, in order. Run it
 * in the transaction that holds `lockAuditHead`.
 */
export async function writeAuditSeals(tx: SqlClient, input: { tenantId: string; seals: AuditSealRow[]; lastAt: Date }): Promise<void> {
  const last = input.seals.at(-1);
  if (!last) return;
  const ids = input.seals.map((s) => s.eventId.toString());
  await query(tx, Prisma.sql`
    WITH sealed AS (
      INSERT INTO "AuditSeal" ("eventId", "tenantId", seq, "prevHash", hash)
      SELECT v.id, ${input.tenantId}::uuid, v.seq, v.prev, v.hash
      FROM unnest(${ids}::bigint[], ${input.seals.map((s) => s.seq.toString())}::bigint[], ${input.seals.map((s) => s.prevHash)}::text[],
        ${input.seals.map((s) => s.hash)}::text[]) AS v(id, seq, prev, hash)
    ),
    dequeued AS (
      DELETE FROM "AuditUnsealed" WHERE "eventId" = ANY(${ids}::bigint[])
    )
    UPDATE "AuditHead" SET seq = ${last.seq.toString()}::bigint, "prevHash" = ${last.prevHash}, hash = ${last.hash},
      at = GREATEST(at, ${input.lastAt}::timestamptz)
    WHERE "tenantId" = ${input.tenantId}::uuid`);
}
