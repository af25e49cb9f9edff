import type { Db } from "@/lib/db/client";
import { isClosed, notUrgently, sqlTransaction } from "@/lib/db/sql";
import { auditBodyJson, auditBodyOfRow, auditEventHash } from "@/lib/audit/audit-record";
import { hasUnsealedAuditEvents } from "@/lib/db/statements/has-unsealed-audit-events";
import { insertGenesisAuditHead } from "@/lib/db/statements/insert-genesis-audit-head";
import { listTenantsWithUnsealedAuditEvents } from "@/lib/db/statements/list-tenants-with-unsealed-audit-events";
import { lockAuditHead } from "@/lib/db/statements/lock-audit-head";
import { readUnsealedAuditEvents } from "@/lib/db/statements/read-unsealed-audit-events";
import { writeAuditSeals, type AuditSealRow } from "@/lib/db/statements/write-audit-seals";

const BATCH = 500;
/** One sealing transaction seals at most this many events, so it never holds the lock for long. */
const MAX_PER_TRANSACTION = 5_000;

/**
 * Seals the tenant's unsealed audit events into its hash chain, in the order they were written
 * (by id), and returns how many it sealed. Each event gets an AuditSeal row with the next seq,
 * the previous event's hash and its own hash, SHA-256(prevHash|seq|at|canonical body), and leaves
 * the AuditUnsealed queue; the tenant's AuditHead moves to the last one. Sealing is serialised per
 * tenant on the head row's lock, held until the sealing transaction commits, so the chain never
 * forks, whichever process seals.
 */
export async function sealAuditChain(db: Db, tenantId: string): Promise<number> {
  if (!(await hasUnsealedAuditEvents(db, { tenantId }))) return 0;
  let sealed = 0;
  for (;;) {
    const { count, more } = await sealBatch(db, tenantId);
    sealed += count;
    if (!more) return sealed;
  }
}

async function sealBatch(db: Db, tenantId: string): Promise<{ count: number; more: boolean }> {
  return sqlTransaction(db, async (tx) => {
    // The head row's lock serialises sealing per tenant until this transaction commits. Every
    // tenant gets its head on creation; one made before that gets it here.
    let head = await lockAuditHead(tx, { tenantId });
    if (!head) {
      await insertGenesisAuditHead(tx, { tenantId });
      head = await lockAuditHead(tx, { tenantId });
      if (!head) throw new Error(`The audit chain head of tenant ${tenantId} could not be created.`);
    }
    let seq = head.seq;
    let prevHash = head.hash;
    let count = 0;
    for (;;) {
      const rows = await readUnsealedAuditEvents(tx, { tenantId, limit: BATCH });
      if (rows.length === 0) break;
      const seals: AuditSealRow[] = [];
      let lastAt = new Date(0);
      for (const row of rows) {
        seq += 1n;
        const hash = auditEventHash({ prevHash, seq: seq.toString(), at: row.at.toISOString() }, auditBodyJson(auditBodyOfRow(row)));
        seals.push({ eventId: row.id, seq, prevHash, hash });
        prevHash = hash;
        if (row.at > lastAt) lastAt = row.at;
      }
      // The seals, the queue and the head move in one statement.
      await writeAuditSeals(tx, { tenantId, seals, lastAt });
      count += rows.length;
      if (rows.length < BATCH || count >= MAX_PER_TRANSACTION) break;
    }
    return { count, more: count >= MAX_PER_TRANSACTION };
  });
}

/** Seals every tenant's unsealed events (the sweep behind `requestSeal`, and before audit reads). */
export async function sealAllPending(db: Db): Promise<number> {
  let sealed = 0;
  for (const tenantId of await listTenantsWithUnsealedAuditEvents(db)) sealed += await sealAuditChain(db, tenantId);
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
      // Bookkeeping, at ordinary priority even when urgent work asked for it (lib/db/sql.ts).
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
