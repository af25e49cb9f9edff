import type { Db } from "@/lib/db/client";
import { isClosed, sqlSession } from "@/lib/db/sql";
import { notUrgently } from "@/lib/scheduling/urgency";
import { auditKeys } from "@/lib/audit/audit-keys";
import { sealTrees as sealInline, type TreeSealed } from "@/lib/audit/seal-events";
import type { TreeToSeal } from "@/lib/db/statements/audit/read-audit-trees-to-seal";
import { sealTreesTask } from "@/lib/audit/compute";
import { runCompute } from "@/lib/compute/compute-pool";
import { fitsWithin, INLINE_CHARS } from "@/lib/compute/fits-within";
import { hasUnsealedAuditEvents } from "@/lib/db/statements/audit/has-unsealed-audit-events";
import { readAuditSealFloors } from "@/lib/db/statements/audit/read-audit-seal-floors";
import { lockAuditTrees, unlockAuditTrees } from "@/lib/db/statements/audit/lock-audit-trees";
import { readAuditTreesToSeal } from "@/lib/db/statements/audit/read-audit-trees-to-seal";
import { writeAuditSeals, type AuditSealRow } from "@/lib/db/statements/audit/write-audit-seals";
import { legacyBoundary } from "@/lib/audit/legacy-boundary";

/** Events of one tenant a pass reads at most; a longer backlog takes more passes. */
const BATCH = 500;
/** Tenants one pass locks and seals at most (each holds an advisory lock until the pass ends). */
const MAX_TENANTS_PER_PASS = 64;
/**
 * A pass with at most this many events, and this much text, computes its seals in this thread
 * (~45 µs an event: ~10 ms at most); a backlog's batch goes to the compute pool. A pass waiting in
 * the pool's queue would hold its trees' locks and a connection meanwhile.
 */
const INLINE_EVENTS = 200;
const INLINE_EVENT_CHARS = 64 * INLINE_CHARS;
/** A batch's seals take milliseconds; this only stops a pass that could never finish. */
const SEAL_BUDGET_MS = 30_000;

/**
 * Seals the tenant's new audit events into its Merkle tree, in the order they were written (by
 * writing transaction, then id), and returns how many it sealed or quarantined: passes over this
 * tenant alone until its backlog is read (see sealPass).
 */
export async function sealAuditChain(db: Db, tenantId: string): Promise<number> {
  return sealTenants(db, [tenantId]);
}

const minXid = (a: string, b: string): string => (BigInt(a) < BigInt(b) ? a : b);

/** The seals of `trees`: in this thread for a few events, on the compute pool for a batch. */
async function sealTrees(trees: TreeToSeal[], macKey: Buffer, legacyCeiling: bigint): Promise<TreeSealed[]> {
  const events = trees.map((tree) => tree.events);
  if (events.flat().length <= INLINE_EVENTS && fitsWithin(events, INLINE_EVENT_CHARS)) return sealInline(trees, macKey, legacyCeiling);
  return runCompute(sealTreesTask, { trees, macKey, legacyCeiling: legacyCeiling.toString() }, { what: "audit seals", budgetMs: SEAL_BUDGET_MS, urgent: false });
}

/**
 * One sealing pass over the trees of `tenantIds`, in at most four statements on one connection,
 * whatever the number of tenants and events (round-trips.test.ts): lock the trees (serialised
 * per tenant across processes, so a tree never forks), read every tree's head, frontier and new
 * events, write every seal and quarantine in one autocommitted statement, unlock. The seals —
 * each event's MAC checked, its leaf hash, the subtrees it completes, the seal's MAC
 * (seal-events.ts) — are computed between the read and the write. Each tree's floor moves past
 * what is sealed: events come in transaction order, so every visible event of a transaction older
 * than the last one read is now sealed or quarantined; and an event not visible yet belongs to a
 * transaction still running, no older than `xmin` (read with the events). Caught up, it moves to
 * `xmin` itself. Returns how many events it sealed or quarantined, and the tenants with more.
 */
async function sealPass(db: Db, tenantIds: string[]): Promise<{ count: number; more: string[] }> {
  const { macKey } = auditKeys();
  const legacy = await legacyBoundary(db);
  return sqlSession(db, async (conn) => {
    await lockAuditTrees(conn, tenantIds);
    try {
      const trees = (await readAuditTreesToSeal(conn, { tenantIds, limit: BATCH })).filter((tree) => tree.events.length > 0);
      if (trees.length === 0) return { count: 0, more: [] };
      const sealed = new Map((await sealTrees(trees, macKey, legacy.ceiling)).map((s) => [s.tenantId, s]));
      const seals: AuditSealRow[] = [];
      const quarantined: Array<{ tenantId: string; eventId: string; reason: string }> = [];
      const written: typeof trees = [];
      for (const tree of trees) {
        const result = sealed.get(tree.tenantId);
        if (!result || "error" in result) {
          // One tenant's broken tree (a seal removed behind the console's back) stops its own sealing only.
          console.error(`[countersign] sealing the audit chain of tenant ${tree.tenantId} failed: ${result?.error ?? "no result"}`);
          continue;
        }
        const caughtUp = tree.events.length < BATCH;
        const floor = caughtUp ? tree.xmin : minXid(tree.events[tree.events.length - 1].xid, tree.xmin);
        for (const seal of result.seals) seals.push({ tenantId: tree.tenantId, floor, ...seal });
        for (const q of result.quarantined) quarantined.push({ tenantId: tree.tenantId, ...q });
        written.push(tree);
      }
      await writeAuditSeals(conn, { seals, quarantined });
      return {
        count: written.reduce((n, tree) => n + tree.events.length, 0),
        more: written.filter((tree) => tree.events.length >= BATCH).map((tree) => tree.tenantId),
      };
    } finally {
      await unlockAuditTrees(conn, tenantIds);
    }
  });
}

/** Seals the trees of `tenantIds`, up to MAX_TENANTS_PER_PASS a pass, until none has a backlog left. */
async function sealTenants(db: Db, tenantIds: string[]): Promise<number> {
  let sealed = 0;
  const unique = [...new Set(tenantIds)];
  for (let i = 0; i < unique.length; i += MAX_TENANTS_PER_PASS) {
    let pending = unique.slice(i, i + MAX_TENANTS_PER_PASS);
    while (pending.length > 0) {
      const { count, more } = await sealPass(db, pending);
      sealed += count;
      pending = more;
    }
  }
  return sealed;
}

/** Seals every tenant's unsealed events (the sweep behind `requestSeal`, and before audit reads). */
export async function sealAllPending(db: Db): Promise<number> {
  const tenants: string[] = [];
  for (const { tenantId, floor } of await readAuditSealFloors(db)) {
    if (await hasUnsealedAuditEvents(db, { tenantId, floor })) tenants.push(tenantId);
  }
  return tenants.length === 0 ? 0 : sealTenants(db, tenants);
}

/** This process's sealer for one client: the requests waiting for its next pass. */
type Sealer = { running: boolean; waiting: Array<{ tenantId: string; resolve: () => void }> };
const sealers = new WeakMap<Db, Sealer>();

/**
 * Asks for the tenant's unsealed events to be sealed, once the transaction that wrote them has
 * committed. One sealer per process (per client) serves every tenant, as a group commit: a pass
 * seals the trees of every tenant asked for before it began, so a burst of writes across tenants
 * costs a few passes, not one per write or per tenant. The promise settles when a pass that began
 * after the request has finished; it never rejects (a failed pass is logged, and the events stay
 * unsealed for the next pass or the worker's sweep).
 */
export function requestSeal(db: Db, tenantId: string): Promise<void> {
  let sealer = sealers.get(db);
  if (!sealer) sealers.set(db, (sealer = { running: false, waiting: [] }));
  const current = sealer;
  return new Promise((resolve) => {
    current.waiting.push({ tenantId, resolve });
    if (!current.running) {
      current.running = true;
      // After the caller's own next statement is on its way: sealing is bookkeeping, not in its path.
      // Bookkeeping, at ordinary priority even when urgent work asked for it (lib/scheduling/urgency.ts).
      notUrgently(() => setImmediate(() => void drain(db, current)));
    }
  });
}

/**
 * Passes start at most this often while writes keep coming: under load a pass then seals a batch
 * of events instead of one or two, and a single write on a quiet system is still sealed at once.
 */
const MIN_PASS_INTERVAL_MS = 25;

async function drain(db: Db, sealer: Sealer): Promise<void> {
  try {
    while (sealer.waiting.length > 0) {
      const startedAt = Date.now();
      const served = sealer.waiting.splice(0);
      try {
        if (!isClosed(db)) await sealTenants(db, served.map((w) => w.tenantId));
      } catch (error) {
        if (!isClosed(db)) console.error(`[countersign] sealing the audit chain failed: ${(error as Error).message}`);
      }
      for (const { resolve } of served) resolve();
      const wait = MIN_PASS_INTERVAL_MS - (Date.now() - startedAt);
      if (sealer.waiting.length > 0 && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  } finally {
    sealer.running = false;
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
