import type { Db } from "@/lib/db/client";
import { isClosed, notUrgently, sqlQuery, sqlTransaction } from "@/lib/db/sql";
import { Prisma } from "@/lib/generated/prisma/client";
import { auditBodyJson, auditBodyOfRow, auditEventHash, GENESIS_HASH } from "@/lib/audit/audit-record";

const BATCH = 500;
/** One sealing transaction seals at most this many events, so it never holds the lock for long. */
const MAX_PER_TRANSACTION = 5_000;

type UnsealedRow = {
  id: bigint; tenantId: string; at: Date; actorType: string; actorId: string | null; actorLabel: string; type: string;
  outcome: string; subjectType: string; subjectId: string | null; actionId: string | null; tool: string | null;
  verdict: string | null; riskLevel: string | null; reviewerId: string | null; requester: string | null;
  status: string | null; data: unknown;
};

/**
 * Seals the tenant's unsealed audit events into its hash chain, in the order they were written
 * (by id), and returns how many it sealed. Each event gets an AuditSeal row with the next seq,
 * the previous event's hash and its own hash, SHA-256(prevHash|seq|at|canonical body), and leaves
 * the AuditUnsealed queue; the tenant's AuditHead moves to the last one. Sealing is serialised per
 * tenant on the head row's lock, held until the sealing transaction commits, so the chain never
 * forks, whichever process seals.
 */
export async function sealAuditChain(db: Db, tenantId: string): Promise<number> {
  const [pending] = await sqlQuery<{ any: boolean }>(db, Prisma.sql`
    SELECT EXISTS (SELECT 1 FROM "AuditUnsealed" WHERE "tenantId" = ${tenantId}::uuid) AS any`);
  if (!pending.any) return 0;
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
    const lockHead = async () =>
      (await tx.query<{ seq: bigint; hash: string }>(Prisma.sql`
        SELECT seq, hash FROM "AuditHead" WHERE "tenantId" = ${tenantId}::uuid FOR UPDATE`))[0];
    let head = await lockHead();
    if (!head) {
      await tx.query(Prisma.sql`
        INSERT INTO "AuditHead" ("tenantId", seq, hash, "prevHash", at)
        VALUES (${tenantId}::uuid, 0, ${GENESIS_HASH}, ${GENESIS_HASH}, to_timestamp(0))
        ON CONFLICT ("tenantId") DO NOTHING`);
      head = await lockHead();
    }
    let seq = head.seq;
    let prevHash = head.hash;
    let count = 0;
    for (;;) {
      const rows = await tx.query<UnsealedRow>(Prisma.sql`
        SELECT e.id, e."tenantId", e.at, e."actorType", e."actorId", e."actorLabel", e.type, e.outcome, e."subjectType",
          e."subjectId", e."actionId", e.tool, e.verdict::text AS verdict, e."riskLevel"::text AS "riskLevel", e."reviewerId",
          e.requester, e.status, e.data
        FROM "AuditUnsealed" u JOIN "AuditEvent" e ON e.id = u."eventId"
        WHERE u."tenantId" = ${tenantId}::uuid
        ORDER BY u."eventId" LIMIT ${BATCH}`);
      if (rows.length === 0) break;
      const ids: string[] = [];
      const seqs: string[] = [];
      const prevs: string[] = [];
      const hashes: string[] = [];
      let lastAt = new Date(0);
      for (const row of rows) {
        seq += 1n;
        const hash = auditEventHash({ prevHash, seq: seq.toString(), at: row.at.toISOString() }, auditBodyJson(auditBodyOfRow(row)));
        ids.push(row.id.toString());
        seqs.push(seq.toString());
        prevs.push(prevHash);
        hashes.push(hash);
        prevHash = hash;
        if (row.at > lastAt) lastAt = row.at;
      }
      // The seals, the queue and the head move in one statement.
      await tx.query(Prisma.sql`
        WITH sealed AS (
          INSERT INTO "AuditSeal" ("eventId", "tenantId", seq, "prevHash", hash)
          SELECT v.id, ${tenantId}::uuid, v.seq, v.prev, v.hash
          FROM unnest(${ids}::bigint[], ${seqs}::bigint[], ${prevs}::text[], ${hashes}::text[]) AS v(id, seq, prev, hash)
        ),
        dequeued AS (
          DELETE FROM "AuditUnsealed" WHERE "eventId" = ANY(${ids}::bigint[])
        )
        UPDATE "AuditHead" SET seq = ${seq.toString()}::bigint, "prevHash" = ${prevs[prevs.length - 1]}, hash = ${prevHash},
          at = GREATEST(at, ${lastAt}::timestamptz)
        WHERE "tenantId" = ${tenantId}::uuid`);
      count += rows.length;
      if (rows.length < BATCH || count >= MAX_PER_TRANSACTION) break;
    }
    return { count, more: count >= MAX_PER_TRANSACTION };
  });
}

/** Seals every tenant's unsealed events (the sweep behind `requestSeal`, and before audit reads). */
export async function sealAllPending(db: Db): Promise<number> {
  const tenants = await sqlQuery<{ tenantId: string }>(db, Prisma.sql`SELECT DISTINCT "tenantId" FROM "AuditUnsealed"`);
  let sealed = 0;
  for (const { tenantId } of tenants) sealed += await sealAuditChain(db, tenantId);
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
