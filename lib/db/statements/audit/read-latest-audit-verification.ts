import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AuditProblem } from "@/lib/db/audit-body";

export type AuditVerificationRow = {
  kind: "full" | "incremental"; ok: boolean; checked: bigint; treeSize: bigint; problems: AuditProblem[]; startedAt: Date; finishedAt: Date;
};

/** The tenant's latest verification of this kind. */
export async function readLatestAuditVerification(q: Queryable, input: { tenantId: string; kind: "full" | "incremental" }): Promise<AuditVerificationRow | null> {
  const [row] = await query<AuditVerificationRow>(q, Prisma.sql`
    SELECT kind, ok, checked, "treeSize", problems, "startedAt", "finishedAt" FROM "AuditVerification"
    WHERE "tenantId" = ${input.tenantId}::uuid AND kind = ${input.kind} ORDER BY id DESC LIMIT 1`);
  return row ?? null;
}
