import type { JsonObject } from "@/lib/canonical/json-value";
import type { DbTx } from "@/lib/db/client";
import { auditBodyJson, auditEventHash, GENESIS_HASH } from "@/lib/audit/audit-record";

export type ChainVerification = {
  ok: boolean;
  checked: number;
  headHash: string;
  /** The first event that does not fit, and why. */
  firstBad: { seq: string; id: string | null; problem: "edited" | "missing_or_reordered" | "broken_link" | "tail_removed" } | null;
};

const BATCH = 5_000;

/**
 * Walks the tenant's chain in order, recomputing every hash. An edited event fails its own hash;
 * a removed or reordered one breaks the sequence or the link to its predecessor; a removed tail
 * no longer reaches the head the chain's last append recorded.
 */
export async function verifyAuditChain(db: DbTx, tenantId: string): Promise<ChainVerification> {
  let expectedSeq = 1n;
  let prevHash = GENESIS_HASH;
  let checked = 0;
  for (;;) {
    const rows = await db.auditEvent.findMany({
      where: { tenantId, seq: { gte: expectedSeq } },
      orderBy: { seq: "asc" },
      take: BATCH,
    });
    for (const row of rows) {
      const bad = (problem: NonNullable<ChainVerification["firstBad"]>["problem"]): ChainVerification => ({
        ok: false,
        checked,
        headHash: prevHash,
        firstBad: { seq: row.seq.toString(), id: row.id.toString(), problem },
      });
      if (row.seq !== expectedSeq) return bad("missing_or_reordered");
      if (row.prevHash !== prevHash) return bad("broken_link");
      const bodyJson = auditBodyJson({
        tenantId: row.tenantId,
        actorType: row.actorType,
        actorId: row.actorId,
        actorLabel: row.actorLabel,
        type: row.type,
        outcome: row.outcome,
        subjectType: row.subjectType,
        subjectId: row.subjectId,
        actionId: row.actionId,
        tool: row.tool,
        verdict: row.verdict,
        riskLevel: row.riskLevel,
        reviewerId: row.reviewerId,
        requester: row.requester,
        status: row.status,
        data: row.data as JsonObject,
      });
      const recomputed = auditEventHash({ prevHash: row.prevHash, seq: row.seq.toString(), at: row.at.toISOString() }, bodyJson);
      if (recomputed !== row.hash) return bad("edited");
      prevHash = row.hash;
      expectedSeq += 1n;
      checked += 1;
    }
    if (rows.length < BATCH) break;
  }
  const head = await db.auditHead.findUnique({ where: { tenantId }, select: { seq: true, hash: true } });
  if (head && (head.seq !== expectedSeq - 1n || head.hash !== prevHash)) {
    return { ok: false, checked, headHash: prevHash, firstBad: { seq: expectedSeq.toString(), id: null, problem: "tail_removed" } };
  }
  return { ok: true, checked, headHash: prevHash, firstBad: null };
}
