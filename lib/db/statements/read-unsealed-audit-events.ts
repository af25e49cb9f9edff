import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";

/** An unsealed event's columns: what its seal's hash covers (see auditBodyOfRow). */
export type UnsealedAuditEvent = {
  id: bigint; tenantId: string; at: Date; actorType: string; actorId: string | null; actorLabel: string; type: string;
  outcome: string; subjectType: string; subjectId: string | null; actionId: string | null; tool: string | null;
  verdict: string | null; riskLevel: string | null; reviewerId: string | null; requester: string | null;
  status: string | null; data: unknown;
};

/**
 * The tenant's oldest unsealed events, up to `limit`, in the order they were written (by id):
 * the order they join the chain. Run it in the transaction that holds `lockAuditHead`.
 */
export async function readUnsealedAuditEvents(tx: SqlClient, input: { tenantId: string; limit: number }): Promise<UnsealedAuditEvent[]> {
  return query<UnsealedAuditEvent>(tx, Prisma.sql`
    SELECT e.id, e."tenantId", e.at, e."actorType", e."actorId", e."actorLabel", e.type, e.outcome, e."subjectType",
      e."subjectId", e."actionId", e.tool, e.verdict::text AS verdict, e."riskLevel"::text AS "riskLevel", e."reviewerId",
      e.requester, e.status, e.data
    FROM "AuditUnsealed" u JOIN "AuditEvent" e ON e.id = u."eventId"
    WHERE u."tenantId" = ${input.tenantId}::uuid
    ORDER BY u."eventId" LIMIT ${input.limit}`);
}
