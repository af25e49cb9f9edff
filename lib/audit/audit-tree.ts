import type { Queryable } from "@/lib/db/sql";
import { readAuditSubtrees } from "@/lib/db/statements/audit/read-audit-subtrees";
import { fromHex, type GetPerfect } from "@/lib/audit/transparency/merkle";
import { MissingSubtreeError } from "@/lib/audit/missing-subtree-error";

/**
 * A tenant's stored perfect subtrees as `getPerfect(level, index)` for merkle.ts: subtree (level,
 * index) is stored with the leaf where it ends, seq (index + 1) × 2^level — its leaf hash at level
 * 0, else `nodes[level - 1]`. Lookups of one tick go to the database as one statement.
 */
export function storedSubtrees(q: Queryable, tenantId: string): GetPerfect {
  type Lookup = { level: number; index: number; seq: bigint; resolve: (hash: Buffer) => void; reject: (error: Error) => void };
  let batch: Lookup[] | null = null;
  const flush = async (pending: Lookup[]) => {
    try {
      const rows = await readAuditSubtrees(q, { tenantId, seqs: [...new Set(pending.map((p) => p.seq))] });
      const bySeq = new Map(rows.map((row) => [row.seq, row]));
      for (const p of pending) {
        const row = bySeq.get(p.seq);
        const hex = row ? (p.level === 0 ? row.leafHash : row.nodes[p.level - 1]) : undefined;
        if (hex === undefined) p.reject(new MissingSubtreeError(`The audit tree of tenant ${tenantId} lacks subtree (${p.level}, ${p.index}) at seq ${p.seq}.`));
        else p.resolve(fromHex(hex));
      }
    } catch (error) {
      for (const p of pending) p.reject(error as Error);
    }
  };
  return (level, index) =>
    new Promise<Buffer>((resolve, reject) => {
      let pending = batch;
      if (!pending) {
        const fresh: Lookup[] = [];
        pending = batch = fresh;
        queueMicrotask(() => {
          batch = null;
          void flush(fresh);
        });
      }
      pending.push({ level, index, seq: BigInt(index + 1) * (1n << BigInt(level)), resolve, reject });
    });
}
