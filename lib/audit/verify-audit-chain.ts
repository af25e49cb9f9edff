import type { Db } from "@/lib/db/client";
import { auditBodyOfRow, auditLeaf, auditLeafBytes } from "@/lib/audit/audit-record";
import { auditKeys, type AuditKeys } from "@/lib/audit/audit-keys";
import { eventMac, macsEqual, sealMac } from "@/lib/audit/event-mac";
import { legacyBoundary } from "@/lib/audit/legacy-boundary";
import { appendLeaf, EMPTY_FRONTIER, fromHex, frontierAt, frontierRoot, leafHash, toHex, type Frontier } from "@/lib/audit/transparency/merkle";
import { storedSubtrees } from "@/lib/audit/audit-tree";
import { MissingSubtreeError } from "@/lib/audit/missing-subtree-error";
import { checkpointNoteProblem, latestTrustedCheckpoint } from "@/lib/audit/trusted-checkpoints";
import { UidLedger } from "@/lib/audit/uid-ledger";
import { readAuditCheckpointPage, type AuditCheckpointRow, type CheckpointSummary } from "@/lib/db/statements/audit/read-audit-checkpoints";
import { readAuditLeaves } from "@/lib/db/statements/audit/read-audit-leaves";
import { readAuditLooseEnds } from "@/lib/db/statements/audit/read-audit-loose-ends";
import { readAuditSealFloors } from "@/lib/db/statements/audit/read-audit-seal-floors";
import { readAuditTreeSize } from "@/lib/db/statements/audit/read-audit-tree-size";
import { sliceTimer } from "@/lib/scheduling/slice-timer";
import type { AuditProblem } from "@/lib/db/audit-body";

/** Something in a tenant's evidence that does not verify, named. */
export type ChainVerification = {
  ok: boolean;
  kind: "full" | "incremental";
  /** Leaves checked by this run. */
  checked: number;
  /** The tree size it verified through, and its root then. */
  treeSize: bigint;
  rootHash: string;
  frontier: Frontier;
  /** The latest signed checkpoint it checked against (incremental: where it started). */
  checkpoint: AuditCheckpointRow | null;
  unsealed: number;
  quarantined: number;
  problems: AuditProblem[];
};

const BATCH = 5_000;
const YIELD_EVERY = 256;
const MAX_PROBLEMS = 20;
/** An event this long unsealed is reported (sealing normally takes moments). */
export const UNSEALED_GRACE_SECONDS = 60;

/**
 * Verifies a tenant's evidence from the latest signed checkpoint (`incremental`, cheap enough for
 * every visit to /audit) or from the first event (`full`). Reads only. What it checks and how each
 * problem is named: docs/DESIGN.md, "Tamper-evident audit".
 */
export async function verifyAuditChain(db: Db, tenantId: string, options: { kind?: "full" | "incremental"; keys?: AuditKeys } = {}): Promise<ChainVerification> {
  const kind = options.kind ?? "incremental";
  const keys = options.keys ?? auditKeys();
  const problems: AuditProblem[] = [];
  const report = (p: AuditProblem) => void (problems.length < MAX_PROBLEMS && problems.push(p));

  // The latest checkpoint the console signed: rows it did not sign, or cannot start from, are
  // input anyone with its INSERT right could write — skipped and named, never trusted.
  const trusted = await latestTrustedCheckpoint(db, tenantId, keys);
  const latest = trusted.checkpoint;
  // Incremental: those above the latest trusted one. Full: every one (tens of thousands a month), a
  // page at a time in step with the leaves, each root compared when the walk reaches its size.
  const checkpoints = kind === "full" ? await checkpointsInOrder(db, tenantId, keys, report) : null;
  if (!checkpoints) for (const problem of trusted.ignored) report(problem);
  const head = await readAuditTreeSize(db, { tenantId });
  if (latest && head < latest.size) {
    report({ problem: "rolled_back", seq: String(head + 1n), message: `The tree has ${head} leaves, but checkpoint ${latest.id} signed ${latest.size}: leaves ${head + 1n}–${latest.size} were removed.` });
  }

  let frontier = await startingFrontier(db, tenantId, kind === "incremental" ? latest : null, report);
  // A full walk: every leaf's uid, so a copy of an event sealed as a second leaf is named.
  const uids = kind === "full" ? new UidLedger() : null;
  const { macKey } = keys;
  const legacy = await legacyBoundary(db);
  let legacySeen = 0n;
  let checked = 0;
  let position = BigInt(frontier.size);
  const through = head;
  walk: while (position < through) {
    const rows = await readAuditLeaves(db, { tenantId, after: position, through, limit: BATCH });
    if (rows.length === 0) break;
    for (const [i, row] of rows.entries()) {
      // Hashing grows with the log: in slices, so other requests are served in between.
      if (i > 0 && i % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
      const expected = position + 1n;
      if (row.seq !== expected) {
        report({ problem: row.seq > expected ? "missing" : "reordered", seq: String(expected), message: `Leaf ${expected} is missing (the next one stored is ${row.seq}).` });
        break walk;
      }
      const seqText = String(row.seq);
      const eventId = String(row.eventId);
      if (row.id === null || row.tenantId !== tenantId) {
        report({ problem: row.id === null ? "missing" : "foreign_event", seq: seqText, eventId, message: row.id === null ? `Leaf ${seqText}'s event ${eventId} was deleted.` : `Leaf ${seqText} names event ${eventId} of another tenant.` });
        break walk;
      }
      uids?.add(row.uid, row.seq);
      if (checkLeafEvent({ ...row, id: row.id }, { tenantId, macKey, legacyCeiling: legacy.ceiling, report })) legacySeen += 1n;
      // The tree is rebuilt from the stored leaf hashes: an edited event is named once (above),
      // not again at every subtree after it; a rewritten leaf hash fails the seal's MAC and the
      // checkpoints' roots.
      const appended = appendLeaf(frontier, fromHex(row.leafHash));
      frontier = appended.frontier;
      const nodes = appended.completed.map((node) => toHex(node.hash));
      if (nodes.length !== row.nodes.length || nodes.some((hash, i) => hash !== row.nodes[i])) {
        report({ problem: "tree_edited", seq: seqText, eventId, message: `The subtrees stored with leaf ${seqText} are not the ones its leaves give.` });
      }
      for (const checkpoint of checkpoints?.due(row.seq) ? await checkpoints.through(row.seq) : []) {
        if (checkpoint.size === row.seq && toHex(frontierRoot(frontier)) !== checkpoint.rootHash) {
          report({ problem: "checkpoint_mismatch", seq: seqText, message: `The tree's root at ${seqText} leaves is not the one checkpoint ${checkpoint.id} signed: an event at or before leaf ${seqText} was changed, inserted or removed.` });
        }
      }
      position = row.seq;
      checked += 1;
    }
  }
  // Those past where the walk ended (a tree rolled back, or a walk stopped at a gap): signatures only.
  await checkpoints?.through(null);
  if (uids) reportReplays(uids, report);
  if (kind === "full" && legacySeen > legacy.count) {
    report({ problem: "legacy_count", message: `${legacySeen} events have no MAC, but only ${legacy.count} were written before MACs existed.` });
  }
  const loose = await reportLooseEnds(db, tenantId, kind, report);
  return {
    ok: problems.length === 0, kind, checked, treeSize: position, rootHash: toHex(frontierRoot(frontier)), frontier,
    checkpoint: latest, unsealed: loose.unsealed, quarantined: loose.quarantined, problems,
  };
}

/**
 * Where a walk starts: the latest trusted checkpoint's frontier (incremental), whose subtrees the
 * stored tree must still hold, or the empty tree.
 */
async function startingFrontier(db: Db, tenantId: string, from: { size: bigint; frontier: string[] } | null, report: (p: AuditProblem) => void): Promise<Frontier> {
  if (!from) return EMPTY_FRONTIER;
  const frontier = { size: Number(from.size), hashes: from.frontier.map(fromHex) };
  await checkStoredFrontier(db, tenantId, frontier, report);
  return frontier;
}

type LeafRow = Parameters<typeof auditBodyOfRow>[0] & {
  id: bigint; seq: bigint; eventId: bigint; uid: string; at: Date; mac: string | null; macOmits: string[];
  leafHash: string; sealMac: string; nodes: string[];
};

/**
 * One sealed leaf's own checks: its event's MAC (none only below the legacy boundary), its leaf
 * hash, and its seal's MAC. True when the event has no MAC (a legacy event, counted by the caller).
 */
function checkLeafEvent(
  row: LeafRow,
  ctx: { tenantId: string; macKey: Buffer; legacyCeiling: bigint; report: (p: AuditProblem) => void },
): boolean {
  const { tenantId, macKey, report } = ctx;
  const seq = String(row.seq);
  const eventId = String(row.eventId);
  const body = auditBodyOfRow(row);
  if (row.mac === null) {
    if (row.id > ctx.legacyCeiling) report({ problem: "forged", seq, eventId, message: `Event ${eventId} (leaf ${seq}) has no MAC: it was not written by the console.` });
  } else if (!macsEqual(row.mac, eventMac(macKey, { uid: row.uid, body, omits: row.macOmits }))) {
    report({ problem: "forged", seq, eventId, message: `Event ${eventId} (leaf ${seq}) fails its MAC: it was written or changed outside the console.` });
  }
  const leaf = leafHash(auditLeafBytes(auditLeaf(row, body)));
  if (toHex(leaf) !== row.leafHash) {
    report({ problem: "edited", seq, eventId, message: `Event ${eventId} (leaf ${seq}) does not match its sealed leaf hash: it was changed after sealing.` });
  }
  if (!macsEqual(row.sealMac, sealMac(macKey, { tenantId, seq: row.seq, eventId: row.eventId, leafHash: row.leafHash, nodes: row.nodes }))) {
    report({ problem: "seal_forged", seq, eventId, message: `The seal of leaf ${seq} fails its MAC: it was written or changed outside the console.` });
  }
  return row.mac === null;
}

/** A full walk's leaves that carry a uid another leaf carried first: a copy sealed again. */
function reportReplays(uids: UidLedger, report: (p: AuditProblem) => void): void {
  for (const repeat of uids.repeats()) {
    const [first, ...copies] = repeat.seqs;
    report({
      problem: "replayed", seq: String(copies[0]),
      message: `Leaf ${copies.join(", ")} repeats the uid ${repeat.uid} of leaf ${first}: a copy of one event was sealed again.`,
    });
  }
}

/**
 * Events never sealed past the grace period, and those refused a seal. Incremental: the events
 * sealing looks at; full: every event (one hidden from sealing by a forged transaction id).
 */
async function reportLooseEnds(db: Db, tenantId: string, kind: "full" | "incremental", report: (p: AuditProblem) => void) {
  const floor = kind === "full" ? "0" : (await readAuditSealFloors(db, { tenantId }))[0]?.floor ?? "0";
  const loose = await readAuditLooseEnds(db, { tenantId, floor, graceSeconds: UNSEALED_GRACE_SECONDS, limit: MAX_PROBLEMS });
  for (const end of loose.rows) {
    report({
      problem: end.problem, eventId: String(end.eventId),
      message: end.problem === "quarantined"
        ? `Event ${end.eventId} (${end.type}) was refused a seal: ${end.reason}.`
        : `Event ${end.eventId} (${end.type}, ${end.at.toISOString()}) was written but never sealed.`,
    });
  }
  return loose;
}

const CHECKPOINT_PAGE = 1_000;

/**
 * The tenant's checkpoints, smallest tree first, a page at a time: `due(seq)` says whether one up
 * to tree size `seq` is still to come (any at all, for null), and `through(seq)` returns those,
 * each one's signature checked.
 */
async function checkpointsInOrder(db: Db, tenantId: string, keys: AuditKeys, report: (p: AuditProblem) => void) {
  const slice = sliceTimer();
  let page: CheckpointSummary[] = [];
  let at = 0;
  const load = async () => {
    const last = page[page.length - 1];
    page = await readAuditCheckpointPage(db, { tenantId, after: last ? { size: last.size, id: last.id } : null, limit: CHECKPOINT_PAGE });
    at = 0;
  };
  await load();
  const due = (seq: bigint | null) => at < page.length && (seq === null || page[at].size <= seq);
  return {
    due,
    async through(seq: bigint | null): Promise<CheckpointSummary[]> {
      const out: CheckpointSummary[] = [];
      while (due(seq)) {
        const checkpoint = page[at++];
        await slice();
        checkCheckpoint(checkpoint, tenantId, keys, report);
        out.push(checkpoint);
        if (at === page.length && page.length === CHECKPOINT_PAGE) await load();
      }
      return out;
    },
  };
}

function checkCheckpoint(checkpoint: CheckpointSummary, tenantId: string, keys: AuditKeys, report: (p: AuditProblem) => void): void {
  const why = checkpointNoteProblem(checkpoint, tenantId, keys);
  if (why) report({ problem: "checkpoint_signature", seq: String(checkpoint.size), message: `Checkpoint ${checkpoint.id} (size ${checkpoint.size}) ${why}.` });
}

/** The perfect subtrees a frontier was made of must still be stored where they were. */
async function checkStoredFrontier(db: Db, tenantId: string, frontier: Frontier, report: (p: AuditProblem) => void): Promise<void> {
  const stored = await frontierAt(frontier.size, storedSubtrees(db, tenantId)).catch((error: unknown) => {
    if (error instanceof MissingSubtreeError) return null;
    throw error;
  });
  if (stored && stored.hashes.every((hash, i) => hash.equals(frontier.hashes[i]))) return;
  report({ problem: "checkpoint_mismatch", seq: String(frontier.size), message: `The tree stored up to leaf ${frontier.size} is not the one the latest checkpoint signed: an event at or before it was changed, inserted or removed.` });
}
