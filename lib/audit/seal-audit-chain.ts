import type { Db } from "@/lib/db/client";
import { isClosed, sqlTransaction } from "@/lib/db/sql";
import { notUrgently } from "@/lib/scheduling/urgency";
import { auditBodyOfRow, auditLeaf, auditLeafBytes } from "@/lib/audit/audit-record";
import { auditKeys } from "@/lib/audit/audit-keys";
import { storedSubtrees } from "@/lib/audit/audit-tree";
import { eventMac, macsEqual, sealMac } from "@/lib/audit/event-mac";
import { appendLeaf, frontierAt, leafHash, toHex } from "@/lib/audit/transparency/merkle";
import { hasUnsealedAuditEvents } from "@/lib/db/statements/audit/has-unsealed-audit-events";
import { readAuditSealFloors } from "@/lib/db/statements/audit/read-audit-seal-floors";
import { lockAuditTree } from "@/lib/db/statements/audit/lock-audit-tree";
import { readUnsealedAuditEvents, type UnsealedAuditEvent } from "@/lib/db/statements/audit/read-unsealed-audit-events";
import { writeAuditSeals, type AuditSealRow } from "@/lib/db/statements/audit/write-audit-seals";
import { legacyBoundary, type LegacyBoundary } from "@/lib/audit/legacy-boundary";

const BATCH = 500;
/** One sealing transaction seals at most this many events, so it never holds the lock for long. */
const MAX_PER_TRANSACTION = 5_000;

/**
 * Seals the tenant's new audit events into its Merkle tree, in the order they were written (by
 * id), and returns how many it sealed. Each event's MAC is checked first (lib/audit/event-mac.ts):
 * one that fails — not written by the console — is quarantined, never sealed, and the verifier
 * names it; so is a copy of an event (its uid is another event's). Each sealed event gets an AuditSeal row: its seq, its RFC 6962 leaf hash, the perfect
 * subtrees it completes, and the seal's MAC. Sealing is serialised per tenant by a transaction
 * lock, so the tree never forks, whichever process seals.
 */
export async function sealAuditChain(db: Db, tenantId: string): Promise<number> {
  const floor = (await readAuditSealFloors(db, { tenantId }))[0]?.floor ?? "0";
  if (!(await hasUnsealedAuditEvents(db, { tenantId, floor }))) return 0;
  let sealed = 0;
  for (;;) {
    const { count, more } = await sealBatch(db, tenantId);
    sealed += count;
    if (!more) return sealed;
  }
}

/** Why an event cannot be sealed, or null when the console wrote it and it is not yet in the tree. */
function quarantineReason(row: UnsealedAuditEvent, macKey: Buffer, legacy: LegacyBoundary): string | null {
  if (row.mac === null) return row.id <= legacy.ceiling ? null : "no MAC: not written by the console";
  const expected = eventMac(macKey, { uid: row.uid, body: auditBodyOfRow(row), omits: row.macOmits });
  if (!macsEqual(row.mac, expected)) return "its MAC does not verify: written or changed outside the console";
  // The MAC cannot bind a place the console does not know when it writes (id, time, seq): one uid, one leaf.
  if (row.sameUidAs !== null) return `a replay: event ${row.sameUidAs} carries the same uid (${row.uid}), and one event is sealed once`;
  return null;
}

const minXid = (a: string, b: string): string => (BigInt(a) < BigInt(b) ? a : b);

async function sealBatch(db: Db, tenantId: string): Promise<{ count: number; more: boolean }> {
  const { macKey } = auditKeys();
  const legacy = await legacyBoundary(db);
  return sqlTransaction(db, async (tx) => {
    const head = await lockAuditTree(tx, { tenantId });
    let frontier = await frontierAt(Number(head.size), storedSubtrees(tx, tenantId));
    let floor = head.floor;
    let count = 0;
    let more = false;
    for (;;) {
      const rows = await readUnsealedAuditEvents(tx, { tenantId, floor, limit: BATCH });
      if (rows.length === 0) break;
      const seals: AuditSealRow[] = [];
      const quarantined: Array<{ eventId: bigint; reason: string }> = [];
      for (const row of rows) {
        const reason = quarantineReason(row, macKey, legacy);
        if (reason) {
          quarantined.push({ eventId: row.id, reason });
          continue;
        }
        const seq = BigInt(frontier.size + 1);
        const leaf = leafHash(auditLeafBytes(auditLeaf({ ...row, seq }, auditBodyOfRow(row))));
        const appended = appendLeaf(frontier, leaf);
        frontier = appended.frontier;
        const seal = { seq, eventId: row.id, leafHash: toHex(leaf), nodes: appended.completed.map((node) => toHex(node.hash)) };
        seals.push({ ...seal, mac: sealMac(macKey, { tenantId, ...seal }) });
      }
      count += rows.length;
      // The floor moves past what is sealed: events come in transaction order, so every visible
      // event of a transaction older than the last one read is now sealed or quarantined; and an
      // event not visible yet belongs to a transaction still running, no older than `xmin`
      // (read before any event was). Caught up, it moves to `xmin` itself.
      const caughtUp = rows.length < BATCH;
      floor = caughtUp ? head.xmin : minXid(rows[rows.length - 1].xid, head.xmin);
      await writeAuditSeals(tx, { tenantId, floor, seals, quarantined });
      more = !caughtUp && count >= MAX_PER_TRANSACTION;
      if (caughtUp || more) break;
    }
    return { count, more };
  });
}

/** Seals every tenant's unsealed events (the sweep behind `requestSeal`, and before audit reads). */
export async function sealAllPending(db: Db): Promise<number> {
  let sealed = 0;
  for (const { tenantId, floor } of await readAuditSealFloors(db)) {
    if (await hasUnsealedAuditEvents(db, { tenantId, floor })) sealed += await sealAuditChain(db, tenantId);
  }
  return sealed;
}

type Sealer = { running: boolean; waiting: Array<() => void> };
const sealers = new WeakMap<Db, Map<string, Sealer>>();

/**
 * Asks for the tenant's unsealed events to be sealed, once the transaction that wrote them has
 * committed. Requests are coalesced: one sealing pass serves every request made before it began,
 * so a burst of writes costs a few sealing transactions, not one each. The promise settles when a
 * pass that began after the request has finished; it never rejects (a failed pass is logged, and
 * the events stay unsealed for the next pass or the worker's sweep).
 */
export function requestSeal(db: Db, tenantId: string): Promise<void> {
  let byTenant = sealers.get(db);
  if (!byTenant) sealers.set(db, (byTenant = new Map()));
  let sealer = byTenant.get(tenantId);
  if (!sealer) byTenant.set(tenantId, (sealer = { running: false, waiting: [] }));
  const current = sealer;
  return new Promise((resolve) => {
    current.waiting.push(resolve);
    if (!current.running) {
      current.running = true;
      // After the caller's own next statement is on its way: sealing is bookkeeping, not in its path.
      // Bookkeeping, at ordinary priority even when urgent work asked for it (lib/scheduling/urgency.ts).
      notUrgently(() => setImmediate(() => void drain(db, tenantId, current, byTenant)));
    }
  });
}

/**
 * Passes for one tenant start at most this often while writes keep coming: under load a pass then
 * seals a batch of events instead of one or two (a pass is a handful of statements), and a single
 * write on a quiet system is still sealed at once.
 */
const MIN_PASS_INTERVAL_MS = 25;

async function drain(db: Db, tenantId: string, sealer: Sealer, byTenant: Map<string, Sealer>): Promise<void> {
  try {
    while (sealer.waiting.length > 0) {
      const startedAt = Date.now();
      const served = sealer.waiting.splice(0);
      try {
        if (!isClosed(db)) await sealAuditChain(db, tenantId);
      } catch (error) {
        if (!isClosed(db)) console.error(`[countersign] sealing the audit chain of tenant ${tenantId} failed: ${(error as Error).message}`);
      }
      for (const resolve of served) resolve();
      const wait = MIN_PASS_INTERVAL_MS - (Date.now() - startedAt);
      if (sealer.waiting.length > 0 && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  } finally {
    sealer.running = false;
    byTenant.delete(tenantId);
  }
}

/**
 * Awaits `transaction` (one that wrote audit events for the tenant) and, once it has committed,
 * asks for those events to be sealed.
 */
export async function thenSeal<T>(db: Db, tenantId: string, transaction: Promise<T>): Promise<T> {
  const result = await transaction;
  void requestSeal(db, tenantId);
  return result;
}
