import type { Db } from "@/lib/db/client";
import { auditOrigin, type AuditKeys } from "@/lib/audit/audit-keys";
import { frontierRoot, fromHex, toHex } from "@/lib/audit/transparency/merkle";
import { parseCheckpoint, parseNote, verifyNote } from "@/lib/audit/transparency/signed-note";
import { readAuditCheckpoints, type AuditCheckpointRow, type CheckpointSummary } from "@/lib/db/statements/audit/read-audit-checkpoints";
import type { AuditProblem } from "@/lib/db/audit-body";

/**
 * Why a checkpoint row's note is not this console's word for this tenant's tree, or null: not
 * signed by its key, for another log, or saying another size or root than the row.
 */
export function checkpointNoteProblem(row: CheckpointSummary, tenantId: string, keys: AuditKeys): string | null {
  try {
    const verified = verifyNote(row.note, [keys.verifier]);
    if (verified.verified.length === 0) return "is not signed by this console's key";
    const parsed = parseCheckpoint(verified.body);
    if (parsed.origin !== auditOrigin(tenantId, keys)) return `is for another log (${parsed.origin})`;
    if (BigInt(parsed.size) !== row.size || toHex(parsed.rootHash) !== row.rootHash) return "does not say what its row says";
    return null;
  } catch (error) {
    return `is not signed by this console's key: ${(error as Error).message}`;
  }
}

const HEX_HASH = /^[0-9a-f]{64}$/;
const bitsSet = (n: bigint) => [...n.toString(2)].filter((bit) => bit === "1").length;

/**
 * Why the console will not start from a checkpoint row (its signed note, and the frontier and
 * witnesses beside it, which the signature does not cover), as a named problem, or null.
 */
export function checkpointRowProblem(row: AuditCheckpointRow, tenantId: string, keys: AuditKeys): AuditProblem | null {
  const named = (problem: AuditProblem["problem"], why: string): AuditProblem =>
    ({ problem, seq: String(row.size), message: `Checkpoint ${row.id} (size ${row.size}) ${why}: ignored.` });
  const note = checkpointNoteProblem(row, tenantId, keys);
  if (note) return named("checkpoint_signature", note);
  const shaped = row.size <= BigInt(Number.MAX_SAFE_INTEGER) && row.frontier.length === bitsSet(row.size) && row.frontier.every((hash) => HEX_HASH.test(hash));
  if (!shaped || toHex(frontierRoot({ size: Number(row.size), hashes: row.frontier.map(fromHex) })) !== row.rootHash) {
    return named("checkpoint_malformed", "has a stored frontier that does not give its signed root");
  }
  const signers = new Set(parseNote(row.note).signatures.map((s) => s.name));
  if (row.witnesses.some((name) => !signers.has(name))) return named("checkpoint_malformed", "names witnesses whose cosignatures its note does not carry");
  return null;
}

const PAGE = 100;
const MAX_NAMED = 20;

/**
 * The tenant's latest checkpoint the console can start from (largest tree; up to `maxSize` when
 * given), skipping rows it did not sign or cannot use — inserted by anyone with the console's
 * INSERT right, say — and naming each one it skipped.
 */
export async function latestTrustedCheckpoint(
  db: Db,
  tenantId: string,
  keys: AuditKeys,
  options: { maxSize?: bigint } = {},
): Promise<{ checkpoint: AuditCheckpointRow | null; ignored: AuditProblem[] }> {
  const ignored: AuditProblem[] = [];
  let before: { size: bigint; id: bigint } | undefined;
  for (;;) {
    const rows = await readAuditCheckpoints(db, { tenantId, limit: PAGE, maxSize: options.maxSize, before });
    for (const row of rows) {
      const problem = checkpointRowProblem(row, tenantId, keys);
      if (!problem) return { checkpoint: row, ignored };
      if (ignored.length < MAX_NAMED) ignored.push(problem);
    }
    if (rows.length < PAGE) return { checkpoint: null, ignored };
    const last = rows[rows.length - 1];
    before = { size: last.size, id: last.id };
  }
}
