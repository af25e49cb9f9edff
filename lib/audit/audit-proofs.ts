import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { auditKeys, auditOrigin } from "@/lib/audit/audit-keys";
import { storedSubtrees } from "@/lib/audit/audit-tree";
import { consistencyProof, inclusionProof, toHex } from "@/lib/audit/transparency/merkle";
import { latestTrustedCheckpoint } from "@/lib/audit/trusted-checkpoints";
import type { AuditCheckpointRow } from "@/lib/db/statements/audit/read-audit-checkpoints";
import { readAuditTreeSize } from "@/lib/db/statements/audit/read-audit-tree-size";

/** What anyone checking a tenant's log needs to know about it: its origin, key and latest signed checkpoint. */
export type AuditLogInfo = {
  origin: string;
  verifierKey: string;
  treeSize: string;
  checkpoint: { size: string; rootHash: string; note: string; witnesses: string[]; createdAt: string } | null;
};

export function checkpointJson(row: AuditCheckpointRow): NonNullable<AuditLogInfo["checkpoint"]> {
  return { size: row.size.toString(), rootHash: row.rootHash, note: row.note, witnesses: row.witnesses, createdAt: row.createdAt.toISOString() };
}

/** The latest checkpoint the console signed (rows it did not are skipped: lib/audit/trusted-checkpoints.ts). */
async function latestSigned(db: Db, tenantId: string, maxSize?: bigint): Promise<AuditCheckpointRow | null> {
  return (await latestTrustedCheckpoint(db, tenantId, auditKeys(), { maxSize })).checkpoint;
}

export async function auditLogInfo(db: Db, tenantId: string): Promise<AuditLogInfo> {
  const [latest, treeSize] = await Promise.all([latestSigned(db, tenantId), readAuditTreeSize(db, { tenantId })]);
  const keys = auditKeys();
  return { origin: auditOrigin(tenantId, keys), verifierKey: keys.verifierKey, treeSize: treeSize.toString(), checkpoint: latest ? checkpointJson(latest) : null };
}

function positive(name: string, value: bigint, max: bigint): number {
  if (value < 1n || value > max) throw new AppError("out_of_range", `${name} must be between 1 and ${max} (the tree's size now).`, 400, { [name]: value.toString(), treeSize: max.toString() });
  return Number(value);
}

/**
 * The RFC 9162 inclusion proof of leaf `seq` (1-based) in the tree of `treeSize` leaves (default:
 * the latest signed checkpoint's), from the stored subtrees, with that checkpoint when one was
 * signed at exactly that size.
 */
export async function auditInclusionProof(db: Db, tenantId: string, input: { seq: bigint; treeSize?: bigint }) {
  const head = await readAuditTreeSize(db, { tenantId });
  const latest = await latestSigned(db, tenantId);
  const treeSize = positive("treeSize", input.treeSize ?? latest?.size ?? head, head);
  const seq = positive("seq", input.seq, BigInt(treeSize));
  const subtrees = storedSubtrees(db, tenantId);
  const [path, leaf] = await Promise.all([inclusionProof(seq - 1, treeSize, subtrees), subtrees(0, seq - 1)]);
  const checkpoint = await latestSigned(db, tenantId, BigInt(treeSize));
  return {
    seq: String(seq), leafIndex: String(seq - 1), treeSize: String(treeSize), leafHash: toHex(leaf), path: path.map(toHex),
    checkpoint: checkpoint && checkpoint.size === BigInt(treeSize) ? checkpointJson(checkpoint) : null,
  };
}

/** The RFC 9162 consistency proof from the tree of `from` leaves to the tree of `to` (default: the latest checkpoint's). */
export async function auditConsistencyProof(db: Db, tenantId: string, input: { from: bigint; to?: bigint }) {
  const head = await readAuditTreeSize(db, { tenantId });
  const latest = await latestSigned(db, tenantId);
  const to = positive("to", input.to ?? latest?.size ?? head, head);
  const from = positive("from", input.from, BigInt(to));
  const path = await consistencyProof(from, to, storedSubtrees(db, tenantId));
  return { from: String(from), to: String(to), path: path.map(toHex) };
}
