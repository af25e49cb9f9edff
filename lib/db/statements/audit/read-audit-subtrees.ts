import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type AuditSubtreeRow = { seq: bigint; leafHash: string; nodes: string[] };

/**
 * The seals at these positions (1-based seqs) of the tenant's tree: their leaf hashes and the
 * perfect subtrees ending there. One index probe per position (a join on the list), planned for
 * this call: a generic plan for `seq = ANY(…)` may read every seal of the tenant.
 */
export async function readAuditSubtrees(q: Queryable, input: { tenantId: string; seqs: bigint[] }): Promise<AuditSubtreeRow[]> {
  if (input.seqs.length === 0) return [];
  return query<AuditSubtreeRow>(q, Prisma.sql`
    SELECT s.seq, s."leafHash", s.nodes FROM unnest(${input.seqs.map(String)}::bigint[]) AS w(seq)
    JOIN "AuditSeal" s ON s."tenantId" = ${input.tenantId}::uuid AND s.seq = w.seq`, { prepare: false });
}
