import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type AuditSubtreeRow = { seq: bigint; leafHash: string; nodes: string[] };

/** The seals at these positions (1-based seqs) of the tenant's tree: their leaf hashes and the perfect subtrees ending there. */
export async function readAuditSubtrees(q: Queryable, input: { tenantId: string; seqs: bigint[] }): Promise<AuditSubtreeRow[]> {
  if (input.seqs.length === 0) return [];
  return query<AuditSubtreeRow>(q, Prisma.sql`
    SELECT seq, "leafHash", nodes FROM "AuditSeal"
    WHERE "tenantId" = ${input.tenantId}::uuid AND seq = ANY(${input.seqs.map(String)}::bigint[])`);
}
