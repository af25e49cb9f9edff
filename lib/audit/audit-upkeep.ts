import type { Db } from "@/lib/db/client";
import { readEnv } from "@/lib/env";
import { auditOrigin } from "@/lib/audit/audit-keys";
import { rememberAlarm } from "@/lib/audit/audit-state-file";
import { checkpointAuditLog } from "@/lib/audit/checkpoint-audit-log";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";
import { insertAuditVerification } from "@/lib/db/statements/audit/insert-audit-verification";
import { listTenantsToCheckpoint } from "@/lib/db/statements/audit/list-tenants-to-checkpoint";

const FULL_WALK_EVERY_MS = 6 * 3600_000;

/**
 * The worker's upkeep of the evidence: a signed checkpoint of each grown tree every
 * AUDIT_CHECKPOINT_INTERVAL_S, and a recorded full verification of each tenant every six hours
 * (first after start). Returns what it did, for the worker's log.
 */
export function auditUpkeep(db: Db, now: () => number = Date.now): () => Promise<string | null> {
  let lastCheckpoint = 0;
  let lastFullWalk = 0;
  return async () => {
    const done: string[] = [];
    const interval = (readEnv("AUDIT_CHECKPOINT_INTERVAL_S") ?? 30) * 1000;
    if (now() - lastCheckpoint >= interval) {
      lastCheckpoint = now();
      let signed = 0;
      for (const id of await listTenantsToCheckpoint(db)) {
        const outcome = await checkpointAuditLog(db, id);
        if (outcome.state === "signed") signed += 1;
        if (outcome.state === "refused") done.push(`checkpoint of tenant ${id} refused: ${outcome.verification.problems[0]?.message}`);
      }
      if (signed) done.push(`signed ${signed} audit checkpoints`);
    }
    if (now() - lastFullWalk >= FULL_WALK_EVERY_MS) {
      lastFullWalk = now();
      for (const { id } of await db.tenant.findMany({ select: { id: true } })) {
        const result = await verifyFully(db, id);
        if (!result.ok) done.push(`full verification of tenant ${id} failed: ${result.problems[0]?.message}`);
      }
    }
    return done.length ? done.join("; ") : null;
  };
}

/** A full verification of a tenant's evidence, recorded (the worker's, or an auditor's on demand). */
export async function verifyFully(db: Db, tenantId: string) {
  const startedAt = new Date();
  const result = await verifyAuditChain(db, tenantId, { kind: "full" });
  // Remembered beside the key too: deleting the verification row must not turn /audit green.
  if (!result.ok) rememberAlarm(auditOrigin(tenantId), "full_walk", result.problems);
  await insertAuditVerification(db, {
    tenantId, kind: "full", ok: result.ok, checked: result.checked, treeSize: result.treeSize, problems: result.problems, startedAt,
  });
  return result;
}

const running = new Set<string>();

/**
 * Starts a full verification of the tenant's evidence in the background (an auditor asked for it)
 * and returns at once: false when one is already running in this process. The walk hashes in
 * slices (verifyAuditChain), so the console keeps answering meanwhile; its result is recorded.
 */
export function startFullVerification(db: Db, tenantId: string): boolean {
  if (running.has(tenantId)) return false;
  running.add(tenantId);
  void verifyFully(db, tenantId)
    .catch((error: unknown) => console.error(`[countersign] full verification of tenant ${tenantId} failed to run: ${(error as Error).message}`))
    .finally(() => running.delete(tenantId));
  return true;
}
