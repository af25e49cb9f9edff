import type { JsonObject } from "@/lib/canonical/json-value";
import type { DbTx } from "@/lib/db/client";
import { auditEventHash, GENESIS_HASH } from "@/lib/audit/audit-record";

export type ChainVerification = {
  ok: boolean;
  checked: number;
  headHash: string;
  /** The first event that does not fit, and why. */
  firstBad: { seq: string; id: string | null; problem: "edited" | "missing_or_reordered" | "broken_link" } | null;
};

const BATCH = 5_000;

/**
 * Walks the tenant's chain in order, recomputing every hash. An edited event fails its own hash;
 * a removed or reordered one breaks the sequence or the link to its predecessor.
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
      const bad = (problem: NonNullable<ChainVerification["firstBad"]>["problem"]) => ({
        ok: false,
        checked,
        headHash: prevHash,
        firstBad: { seq: row.seq.toString(), id: row.id.toString(), problem },
      });
      if (row.seq !== expectedSeq) return bad("missing_or_reordered");
      if (row.prevHash !== prevHash) return bad("broken_link");
      const recomputed = auditEventHash({
        tenantId: row.tenantId,
        seq: row.seq.toString(),
        at: row.at.toISOString(),
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
        prevHash: row.prevHash,
      });
      if (recomputed !== row.hash) return bad("edited");
      prevHash = row.hash;
      expectedSeq += 1n;
      checked += 1;
    }
    if (rows.length < BATCH) break;
  }
  return { ok: true, checked, headHash: prevHash, firstBad: null };
}
