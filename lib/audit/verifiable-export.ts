import type { Db } from "@/lib/db/client";
import type { AuditFilters } from "@/lib/audit/audit-filters";
import { auditBodyOfRow, auditLeaf, auditLeafBytes, type AuditLeaf } from "@/lib/audit/audit-record";
import { auditKeys, auditOrigin, type AuditKeys } from "@/lib/audit/audit-keys";
import { storedSubtrees } from "@/lib/audit/audit-tree";
import { MissingSubtreeError } from "@/lib/audit/missing-subtree-error";
import { checkpointNoteProblem, latestTrustedCheckpoint } from "@/lib/audit/trusted-checkpoints";
import { checkpointAuditLog, type CheckpointOutcome } from "@/lib/audit/checkpoint-audit-log";
import { configuredWitnesses } from "@/lib/audit/witness-checkpoint";
import { searchAuditEvents } from "@/lib/audit/search-audit-events";
import { consistencyProof, inclusionProof, toHex } from "@/lib/audit/transparency/merkle";
import { readExportCheckpoints, type CheckpointSummary } from "@/lib/db/statements/audit/read-audit-checkpoints";
import { readAuditLeaves } from "@/lib/db/statements/audit/read-audit-leaves";
import { readAuditTreeSize } from "@/lib/db/statements/audit/read-audit-tree-size";

const BATCH = 1_000;
/** An export carries at most this many checkpoints (the oldest and the newest ones), with consistency proofs between them. */
const MAX_CHECKPOINTS = 1_000;

/**
 * The tenant's log as the offline verifier reads it (docs/AUDIT-EXPORT.md), a JSON line at a time:
 * header, events as leaves, signed checkpoints and the consistency proofs between them. A fresh
 * checkpoint is signed first. Unfiltered, every leaf (`complete`); filtered, each event with its
 * inclusion proof. Always whole: a proof the stored tree cannot give is left out for the verifier
 * to name (docs/DESIGN.md, "Evidence the database cannot take back", 3).
 */
export async function* verifiableExportLines(db: Db, input: { tenantId: string; filters: AuditFilters }): AsyncGenerator<string> {
  const { tenantId, filters } = input;
  const keys = auditKeys();
  const outcome = await checkpointAuditLog(db, tenantId);
  const head = await readAuditTreeSize(db, { tenantId });
  const { checkpoint: final } = await latestTrustedCheckpoint(db, tenantId, keys);
  // Proofs go against the newest checkpoint the stored tree still holds (after a rollback, an older one).
  const base = final && final.size > head ? (await latestTrustedCheckpoint(db, tenantId, keys, { maxSize: head })).checkpoint : final;
  const size = base?.size ?? 0n;
  const chosen = exportCheckpoints(await readExportCheckpoints(db, { tenantId, max: MAX_CHECKPOINTS }), [final, base], tenantId, keys);
  const complete = Object.keys(filters).length === 0;
  // Complete: every leaf, also any after the newest checkpoint (the verifier says they are not covered).
  const through = complete ? head : size;
  yield line({
    kind: "countersign.audit-export", version: 1, tenantId, origin: auditOrigin(tenantId, keys), exportedAt: new Date().toISOString(),
    logKey: keys.verifierKey, witnessKeys: configuredWitnesses().keys, complete, fromSeq: "1", toSeq: through.toString(),
    filters, consoleCheck: consoleCheckOf(outcome),
  });
  const subtrees = storedSubtrees(db, tenantId);
  if (complete) {
    for (let after = 0n; after < through; ) {
      const rows = await readAuditLeaves(db, { tenantId, after, through, limit: BATCH });
      if (rows.length === 0) break;
      for (const row of rows) {
        if (row.id === null) continue; // a hole: the verifier names the gap
        yield eventLine(row.seq, auditLeaf({ ...row, id: row.id }, auditBodyOfRow(row)));
      }
      after = rows[rows.length - 1].seq;
    }
  } else if (base) {
    let cursor: bigint | null = null;
    do {
      const page = await searchAuditEvents(db, { tenantId, filters, cursor, limit: BATCH });
      const sealed = page.events.filter((e): e is typeof e & { seq: bigint } => e.seq !== null && e.seq <= size);
      const proofs = await Promise.allSettled(sealed.map((e) => inclusionProof(Number(e.seq) - 1, Number(size), subtrees)));
      for (const [i, event] of sealed.entries()) {
        const leaf: AuditLeaf = auditLeaf(event, auditBodyOfRow({ ...event, tenantId }));
        const proof = proofs[i];
        if (proof.status === "rejected" && !(proof.reason instanceof MissingSubtreeError)) throw proof.reason;
        // Without its proof (the tree lacks a subtree) the verifier names the event.
        yield eventLine(event.seq, leaf, proof.status === "fulfilled" ? { treeSize: size.toString(), path: proof.value.map(toHex) } : undefined);
      }
      cursor = page.nextCursor === null ? null : BigInt(page.nextCursor);
    } while (cursor !== null);
  }
  for (const checkpoint of chosen) yield line({ kind: "checkpoint", note: checkpoint.note });
  for (let i = 1; i < chosen.length; i++) {
    const from = Number(chosen[i - 1].size);
    const to = Number(chosen[i].size);
    if (from === 0 || from === to) continue;
    const path = await consistencyProof(from, to, subtrees).catch((error: unknown) => {
      if (error instanceof MissingSubtreeError) return null; // the verifier names the checkpoints it cannot connect
      throw error;
    });
    if (path) yield line({ kind: "consistency", from: String(from), to: String(to), path: path.map(toHex) });
  }
}

/**
 * The checkpoints to export, smallest tree first, one per size: those chosen whose note the
 * console signed for this log, up to the newest trusted one, and the `wanted` ones.
 */
function exportCheckpoints(candidates: CheckpointSummary[], wanted: Array<CheckpointSummary | null>, tenantId: string, keys: AuditKeys): CheckpointSummary[] {
  const newest = wanted[0]?.size ?? -1n;
  const bySize = new Map<bigint, CheckpointSummary>();
  for (const c of candidates) if (c.size <= newest && checkpointNoteProblem(c, tenantId, keys) === null) bySize.set(c.size, c);
  for (const c of wanted) if (c) bySize.set(c.size, c);
  return [...bySize.values()].sort((a, b) => (a.size < b.size ? -1 : a.size > b.size ? 1 : 0));
}

/** An event's line, its leaf written as the canonical JSON its hash covers (the verifier's fast path). */
function eventLine(seq: bigint, leaf: AuditLeaf, inclusion?: { treeSize: string; path: string[] }): string {
  const proof = inclusion ? `,"inclusion":${JSON.stringify(inclusion)}` : "";
  return `{"kind":"event","seq":"${seq}","leaf":${auditLeafBytes(leaf).toString("utf8")}${proof}}\n`;
}

function line(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** The console's own check (verifyAuditChain), including events outside the tree, which no line of the file shows. */
function consoleCheckOf(outcome: CheckpointOutcome) {
  return { ok: outcome.verification.ok, problems: outcome.verification.problems };
}
