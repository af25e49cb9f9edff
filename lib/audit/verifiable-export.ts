import type { Db } from "@/lib/db/client";
import type { AuditFilters } from "@/lib/audit/audit-filters";
import { auditBodyOfRow, auditLeaf, auditLeafBytes, type AuditLeaf } from "@/lib/audit/audit-record";
import { auditKeys, auditOrigin } from "@/lib/audit/audit-keys";
import { storedSubtrees } from "@/lib/audit/audit-tree";
import { checkpointAuditLog, type CheckpointOutcome } from "@/lib/audit/checkpoint-audit-log";
import { configuredWitnesses } from "@/lib/audit/witness-checkpoint";
import { searchAuditEvents } from "@/lib/audit/search-audit-events";
import { consistencyProof, inclusionProof, toHex } from "@/lib/audit/transparency/merkle";
import { readAuditCheckpoints, readExportCheckpoints } from "@/lib/db/statements/audit/read-audit-checkpoints";
import { readAuditLeaves } from "@/lib/db/statements/audit/read-audit-leaves";
import { readAuditTreeSize } from "@/lib/db/statements/audit/read-audit-tree-size";

const BATCH = 1_000;
/** An export carries at most this many checkpoints (the oldest and the newest ones), with consistency proofs between them. */
const MAX_CHECKPOINTS = 1_000;

/**
 * The tenant's audit log as the offline verifier reads it (docs/AUDIT-EXPORT.md,
 * scripts/verify-audit-export.mjs), one JSON line at a time: a header with the log's origin and
 * public keys, the events as the leaves their hashes cover, then signed checkpoints and the
 * consistency proofs between them. A fresh checkpoint is signed first (if the tree grew and the
 * new leaves verify), so the export is covered up to the moment it was asked for.
 * Unfiltered, every leaf from 1 is included (`complete`) and the verifier recomputes every root;
 * filtered, each event carries its inclusion proof against the newest checkpoint instead.
 */
export async function* verifiableExportLines(db: Db, input: { tenantId: string; filters: AuditFilters }): AsyncGenerator<string> {
  const { tenantId, filters } = input;
  const outcome = await checkpointAuditLog(db, tenantId);
  const [final = null] = await readAuditCheckpoints(db, { tenantId, limit: 1 });
  const size = final?.size ?? 0n;
  const chosen = await readExportCheckpoints(db, { tenantId, max: MAX_CHECKPOINTS });
  const complete = Object.keys(filters).length === 0;
  // Complete: every leaf, also any after the newest checkpoint (the verifier says they are not covered).
  const through = complete ? await readAuditTreeSize(db, { tenantId }) : size;
  const keys = auditKeys();
  yield line({
    kind: "countersign.audit-export", version: 1, tenantId, origin: auditOrigin(tenantId, keys), exportedAt: new Date().toISOString(),
    logKey: keys.verifierKey, witnessKeys: configuredWitnesses().keys, complete, fromSeq: "1", toSeq: through.toString(),
    filters, consoleCheck: consoleCheckOf(outcome),
  });
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
  } else if (final) {
    const subtrees = storedSubtrees(db, tenantId);
    let cursor: bigint | null = null;
    do {
      const page = await searchAuditEvents(db, { tenantId, filters, cursor, limit: BATCH });
      const sealed = page.events.filter((e): e is typeof e & { seq: bigint } => e.seq !== null && e.seq <= size);
      const proofs = await Promise.all(sealed.map((e) => inclusionProof(Number(e.seq) - 1, Number(size), subtrees)));
      for (const [i, event] of sealed.entries()) {
        const leaf: AuditLeaf = auditLeaf(event, auditBodyOfRow({ ...event, tenantId }));
        yield eventLine(event.seq, leaf, { treeSize: size.toString(), path: proofs[i].map(toHex) });
      }
      cursor = page.nextCursor === null ? null : BigInt(page.nextCursor);
    } while (cursor !== null);
  }
  const subtrees = storedSubtrees(db, tenantId);
  for (const checkpoint of chosen) yield line({ kind: "checkpoint", note: checkpoint.note });
  for (let i = 1; i < chosen.length; i++) {
    const from = Number(chosen[i - 1].size);
    const to = Number(chosen[i].size);
    if (from === 0 || from === to) continue;
    yield line({ kind: "consistency", from: String(from), to: String(to), path: (await consistencyProof(from, to, subtrees)).map(toHex) });
  }
}

/** An event's line, its leaf written as the canonical JSON its hash covers (the verifier's fast path). */
function eventLine(seq: bigint, leaf: AuditLeaf, inclusion?: { treeSize: string; path: string[] }): string {
  const proof = inclusion ? `,"inclusion":${JSON.stringify(inclusion)}` : "";
  return `{"kind":"event","seq":"${seq}","leaf":${auditLeafBytes(leaf).toString("utf8")}${proof}}\n`;
}

function line(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** The console's own check, as verifyAuditChain judged it: also events outside the tree (quarantined, long unsealed), which no line of the file shows. */
function consoleCheckOf(outcome: CheckpointOutcome) {
  return { ok: outcome.verification.ok, problems: outcome.verification.problems };
}
