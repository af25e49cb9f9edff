import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { UnsealedAuditEvent } from "@/lib/db/statements/audit/read-unsealed-audit-events";

/** A seal with its event's columns (`id` is null when the event is gone: the seal then names a hole). */
export type AuditLeafRow = Omit<UnsealedAuditEvent, "id"> & {
  id: bigint | null; seq: bigint; eventId: bigint; leafHash: string; nodes: string[]; sealMac: string;
};

/** The tenant's seals after seq `after` up to `through`, in seq order, at most `limit`, each with its event. */
export async function readAuditLeaves(q: Queryable, input: { tenantId: string; after: bigint; through: bigint; limit: number }): Promise<AuditLeafRow[]> {
  return query<AuditLeafRow>(q, Prisma.sql`
    SELECT s.seq, s."eventId", s."leafHash", s.nodes, s.mac AS "sealMac",
      e.id, e."tenantId", e.at, e.uid, e.mac, e."macOmits", e."actorType", e."actorId", e."actorLabel", e.type, e.outcome,
      e."subjectType", e."subjectId", e."actionId", e.tool, e.verdict::text AS verdict, e."riskLevel"::text AS "riskLevel",
      e."reviewerId", e.requester, e.status, e.data
    FROM "AuditSeal" s LEFT JOIN "AuditEvent" e ON e.id = s."eventId"
    WHERE s."tenantId" = ${input.tenantId}::uuid AND s.seq > ${input.after} AND s.seq <= ${input.through}
    ORDER BY s.seq LIMIT ${input.limit}`);
}
