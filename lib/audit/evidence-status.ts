import type { Db } from "@/lib/db/client";
import { auditOrigin } from "@/lib/audit/audit-keys";
import { unresolvedAlarms, type AuditAlarm } from "@/lib/audit/audit-state-file";
import { verifyAuditChain, type ChainVerification } from "@/lib/audit/verify-audit-chain";
import { readLatestAuditVerification, type AuditVerificationRow } from "@/lib/db/statements/audit/read-latest-audit-verification";

/**
 * What /audit shows of a tenant's evidence: the check of what was added since the latest signed
 * checkpoint (reads only), the last full verification, and the failures the console remembers
 * beside its key until an operator resolves them (which deleting rows cannot clear).
 */
export async function evidenceStatus(db: Db, tenantId: string): Promise<{ result: ChainVerification; lastFull: AuditVerificationRow | null; alarms: AuditAlarm[] }> {
  const [result, lastFull] = await Promise.all([
    verifyAuditChain(db, tenantId, { kind: "incremental" }),
    readLatestAuditVerification(db, { tenantId, kind: "full" }),
  ]);
  return { result, lastFull, alarms: unresolvedAlarms(auditOrigin(tenantId)) };
}
