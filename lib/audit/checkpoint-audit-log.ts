import type { Db } from "@/lib/db/client";
import { auditKeys, auditOrigin } from "@/lib/audit/audit-keys";
import { rememberAlarm } from "@/lib/audit/audit-state-file";
import { legacyBoundary, legacyExtension } from "@/lib/audit/legacy-boundary";
import { sealAuditChain } from "@/lib/audit/seal-audit-chain";
import { verifyAuditChain, type ChainVerification } from "@/lib/audit/verify-audit-chain";
import { witnessCheckpoint } from "@/lib/audit/witness-checkpoint";
import { formatCheckpoint, signNote } from "@/lib/audit/transparency/signed-note";
import { frontierRoot, toHex } from "@/lib/audit/transparency/merkle";
import { insertAuditCheckpoint } from "@/lib/db/statements/audit/insert-audit-checkpoint";
import { insertAuditVerification } from "@/lib/db/statements/audit/insert-audit-verification";
import { readLatestAuditVerification } from "@/lib/db/statements/audit/read-latest-audit-verification";
import type { AuditCheckpointRow } from "@/lib/db/statements/audit/read-audit-checkpoints";
import type { AuditProblem } from "@/lib/db/audit-body";

/**
 * `verification`: the incremental check it rests on, in every state; whoever reports the check must
 * show its problems outside the tree (quarantined or long-unsealed events), as the export does.
 */
export type CheckpointOutcome = { verification: ChainVerification } & (
  | { state: "signed"; size: bigint; rootHash: string; witnesses: string[]; id: bigint }
  | { state: "unchanged"; size: bigint }
  | { state: "refused" }
);

/**
 * Signs a checkpoint of the tenant's tree (a C2SP note, Ed25519) once the leaves since the previous
 * one verify, so a checkpoint never vouches for a forged or edited event, and sends it to the
 * witnesses. A failed check is recorded, remembered beside the key until resolved, and nothing is
 * signed. Nothing new: nothing signed unless `force`.
 */
export async function checkpointAuditLog(db: Db, tenantId: string, options: { force?: boolean } = {}): Promise<CheckpointOutcome> {
  await sealAuditChain(db, tenantId);
  const startedAt = new Date();
  const verification = await verifyAuditChain(db, tenantId, { kind: "incremental" });
  // Events outside the tree, and checkpoint rows the console did not sign (skipped: the walk starts
  // from its own), are reported, but do not stop the tree itself being vouched for.
  const outside = new Set<AuditProblem["problem"]>(["unsealed", "quarantined", "checkpoint_signature", "checkpoint_malformed"]);
  const blocking = verification.problems.filter((p) => !outside.has(p.problem));
  if (blocking.length > 0) {
    // Remembered beside the key, where deleting the verification rows does not erase it.
    rememberAlarm(auditOrigin(tenantId), "checkpoint", blocking);
    // Recorded when it starts failing or fails differently, not again every cadence.
    const last = await readLatestAuditVerification(db, { tenantId, kind: "incremental" });
    if (last && !last.ok && last.problems[0]?.message === verification.problems[0]?.message) return { state: "refused", verification };
    await insertAuditVerification(db, {
      tenantId, kind: "incremental", ok: false, checked: verification.checked, treeSize: verification.treeSize,
      problems: verification.problems, startedAt,
    });
    return { state: "refused", verification };
  }
  const previous: AuditCheckpointRow | null = verification.checkpoint;
  if (previous && previous.size === verification.treeSize && !options.force) return { state: "unchanged", size: previous.size, verification };
  const keys = auditKeys();
  const root = frontierRoot(verification.frontier);
  // The legacy boundary as the console holds it, signed into its history (lib/audit/legacy-boundary.ts).
  const extensions = [legacyExtension(await legacyBoundary(db))];
  const body = formatCheckpoint({ origin: auditOrigin(tenantId, keys), size: Number(verification.treeSize), rootHash: root, extensions });
  const signed = signNote(body, keys.signer);
  const witnessed = await witnessCheckpoint(db, tenantId, { note: signed, previousSize: previous ? Number(previous.size) : 0, size: Number(verification.treeSize) });
  const row = await insertAuditCheckpoint(db, {
    tenantId, size: verification.treeSize, rootHash: toHex(root), frontier: verification.frontier.hashes.map(toHex),
    note: witnessed.note, witnesses: witnessed.witnesses, checked: verification.checked, startedAt, problems: verification.problems,
  });
  return { state: "signed", size: verification.treeSize, rootHash: toHex(root), witnesses: witnessed.witnesses, id: row.id, verification };
}
