import type { DbTx } from "@/lib/db/client";
import { auditBodyJson, auditBodyOfRow, auditEventHash, GENESIS_HASH } from "@/lib/audit/audit-record";

export type ChainVerification = {
  ok: boolean;
  checked: number;
  /** Events written but not yet sealed into the chain (normally sealed within moments). */
  unsealed: number;
  headHash: string;
  /** The first event that does not fit, and why. */
  firstBad: { seq: string; id: string | null; problem: "edited" | "missing_or_reordered" | "broken_link" | "tail_removed" } | null;
};

const BATCH = 5_000;

/**
 * Walks the tenant's chain (AuditSeal, in seq order, with each sealed event), recomputing every
 * hash. An edited event or seal fails its own hash; a removed or reordered one breaks the sequence or the link to its predecessor; a removed
 * tail no longer reaches the head the last sealing recorded. Events not yet sealed are counted,
 * not judged: call `sealAuditChain` first to include them.
 */
export async function verifyAuditChain(db: DbTx, tenantId: string): Promise<ChainVerification> {
  let expectedSeq = 1n;
  let prevHash = GENESIS_HASH;
  let checked = 0;
  // The head first: sealing moves it in the same transaction as the events it seals, so every
  // event up to the head read here is already visible. Events sealed after it are left for the
  // next check (a sealing pass may run while this one does).
  const head = (await db.auditHead.findUnique({ where: { tenantId }, select: { seq: true, hash: true } })) ?? { seq: 0n, hash: GENESIS_HASH };
  const unsealed = await db.auditUnsealed.count({ where: { tenantId } });
  for (;;) {
    const seals = await db.auditSeal.findMany({
      where: { tenantId, seq: { gte: expectedSeq, lte: head.seq } },
      orderBy: { seq: "asc" },
      take: BATCH,
      include: { event: true },
    });
    for (const { event: row, ...seal } of seals) {
      const bad = (problem: NonNullable<ChainVerification["firstBad"]>["problem"]): ChainVerification => ({
        ok: false,
        checked,
        unsealed,
        headHash: prevHash,
        firstBad: { seq: seal.seq.toString(), id: seal.eventId.toString(), problem },
      });
      if (seal.seq !== expectedSeq) return bad("missing_or_reordered");
      if (seal.prevHash !== prevHash) return bad("broken_link");
      // A seal names an event of another tenant: the chain was spliced.
      if (row.tenantId !== tenantId) return bad("broken_link");
      const bodyJson = auditBodyJson(auditBodyOfRow(row));
      const recomputed = auditEventHash({ prevHash, seq: expectedSeq.toString(), at: row.at.toISOString() }, bodyJson);
      if (recomputed !== seal.hash) return bad("edited");
      prevHash = recomputed;
      expectedSeq += 1n;
      checked += 1;
    }
    if (seals.length < BATCH) break;
  }
  if (head.seq !== expectedSeq - 1n || head.hash !== prevHash) {
    return { ok: false, checked, unsealed, headHash: prevHash, firstBad: { seq: expectedSeq.toString(), id: null, problem: "tail_removed" } };
  }
  return { ok: true, checked, unsealed, headHash: prevHash, firstBad: null };
}
