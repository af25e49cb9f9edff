import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AuditProblem } from "@/lib/db/audit-body";

/** Records a verification of the tenant's evidence and its result. */
export async function insertAuditVerification(
  q: Queryable,
  input: { tenantId: string; kind: "full" | "incremental"; ok: boolean; checked: number; treeSize: bigint; problems: AuditProblem[]; startedAt: Date },
): Promise<void> {
  await query(q, Prisma.sql`
    INSERT INTO "AuditVerification" ("tenantId", kind, ok, checked, "treeSize", problems, "startedAt")
    VALUES (${input.tenantId}::uuid, ${input.kind}, ${input.ok}, ${input.checked}, ${input.treeSize}, ${JSON.stringify(input.problems)}::jsonb, ${input.startedAt})`);
}
