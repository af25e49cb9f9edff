import type { DbTx } from "@/lib/db/client";
import { Prisma, type AuditEvent } from "@/lib/generated/prisma/client";
import type { AuditFilters } from "@/lib/audit/audit-filters";

/** An event with its place in the chain (null until it is sealed, moments after it was written). */
export type AuditEventRow = AuditEvent & { seq: bigint | null; prevHash: string | null; hash: string | null };

export type AuditSearchResult = {
  events: AuditEventRow[];
  /** Pass back as `cursor` for the next (older) page; null at the end. */
  nextCursor: string | null;
  /** With free text: how many events (matching the other filters) this page looked through. */
  textScan: { scanned: number; limit: number } | null;
};

/** Free text is a substring match, so it looks through at most this many events per page. */
export const TEXT_SCAN_LIMIT = 10_000;
export const AUDIT_PAGE_SIZE = 50;

const COLUMNS = Prisma.sql`e.id, s.seq, e.at, e."actorType", e."actorId", e."actorLabel", e.type, e.outcome, e."subjectType", e."subjectId",
  e."actionId"::text AS "actionId", e.tool, e.verdict::text AS verdict, e."riskLevel"::text AS "riskLevel", e."reviewerId"::text AS "reviewerId",
  e.requester, e.status, e.data, s."prevHash", s.hash`;
/** Each event's seal, if it has one yet. */
const SEALS = Prisma.sql`LEFT JOIN "AuditSeal" s ON s."eventId" = e.id`;

const dayStart = (day: string) => new Date(`${day}T00:00:00.000Z`);
const nextDayStart = (day: string) => new Date(dayStart(day).getTime() + 86_400_000);

/**
 * Turns a date range into an id range. Ids grow with `at` (both are assigned as the event is
 * written), so after two index probes on (tenantId, at, id) every filter can walk its own
 * (tenantId, <column>, id desc) index in id order, and pagination is a keyset on id alone.
 * Concurrent writers can take ids and times in slightly different orders, so each bound is the
 * extreme id among the 100 events nearest the boundary in time, and the time test stays too.
 */
async function idBounds(db: DbTx, tenantId: string, filters: AuditFilters): Promise<{ lo: bigint | null; hi: bigint | null } | "empty"> {
  let lo: bigint | null = null;
  let hi: bigint | null = null;
  if (filters.from) {
    const rows = await db.$queryRaw<Array<{ id: bigint }>>`
      SELECT min(id) AS id FROM (
        SELECT id FROM "AuditEvent" WHERE "tenantId" = ${tenantId}::uuid AND at >= ${dayStart(filters.from)} ORDER BY at ASC, id ASC LIMIT 100
      ) edge HAVING count(*) > 0`;
    if (!rows[0]) return "empty";
    lo = rows[0].id;
  }
  if (filters.to) {
    const rows = await db.$queryRaw<Array<{ id: bigint }>>`
      SELECT max(id) AS id FROM (
        SELECT id FROM "AuditEvent" WHERE "tenantId" = ${tenantId}::uuid AND at < ${nextDayStart(filters.to)} ORDER BY at DESC, id DESC LIMIT 100
      ) edge HAVING count(*) > 0`;
    if (!rows[0]) return "empty";
    hi = rows[0].id;
  }
  return { lo, hi };
}

/** Every condition of the filters except free text, tenant first (invariant 5: tenant in every where). */
function conditions(tenantId: string, filters: AuditFilters, bounds: { lo: bigint | null; hi: bigint | null }, cursor: bigint | null): Prisma.Sql {
  const c: Prisma.Sql[] = [Prisma.sql`e."tenantId" = ${tenantId}::uuid`];
  if (filters.tool) c.push(Prisma.sql`e.tool = ${filters.tool}`);
  if (filters.verdict) c.push(Prisma.sql`e.verdict = ${filters.verdict}::"Verdict"`);
  if (filters.risk) c.push(Prisma.sql`e."riskLevel" = ${filters.risk}::"RiskLevel"`);
  if (filters.reviewer) c.push(Prisma.sql`e."reviewerId" = ${filters.reviewer}::uuid`);
  if (filters.requester) c.push(Prisma.sql`e.requester = ${filters.requester}`);
  if (filters.status) c.push(Prisma.sql`e.status = ${filters.status}`);
  if (filters.type) c.push(Prisma.sql`e.type = ${filters.type}`);
  // The date range stays as a check too, in case a clock ever stepped back.
  if (filters.from) c.push(Prisma.sql`e.at >= ${dayStart(filters.from)}`);
  if (filters.to) c.push(Prisma.sql`e.at < ${nextDayStart(filters.to)}`);
  if (bounds.lo !== null) c.push(Prisma.sql`e.id >= ${bounds.lo}`);
  if (bounds.hi !== null) c.push(Prisma.sql`e.id <= ${bounds.hi}`);
  if (cursor !== null) c.push(Prisma.sql`e.id < ${cursor}`);
  return Prisma.join(c, " AND ");
}

function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

export function parseAuditCursor(value: string | null | undefined): bigint | null {
  return value && /^\d{1,19}$/.test(value) ? BigInt(value) : null;
}

/**
 * One page of the tenant's audit events matching the filters, newest first, with a keyset cursor
 * (never OFFSET). Free text (over type, actor, requester and tool) is a bounded substring scan:
 * each page looks through at most TEXT_SCAN_LIMIT events that match the other filters, and the
 * cursor continues from where the scan stopped, so a rare word costs bounded time per page.
 */
export async function searchAuditEvents(
  db: DbTx,
  input: { tenantId: string; filters: AuditFilters; cursor?: bigint | null; limit?: number; textScanLimit?: number },
): Promise<AuditSearchResult> {
  const limit = Math.min(Math.max(input.limit ?? AUDIT_PAGE_SIZE, 1), 5_000);
  const bounds = await idBounds(db, input.tenantId, input.filters);
  if (bounds === "empty") return { events: [], nextCursor: null, textScan: input.filters.q ? { scanned: 0, limit: 0 } : null };
  const where = conditions(input.tenantId, input.filters, bounds, input.cursor ?? null);

  if (!input.filters.q) {
    const rows = await db.$queryRaw<AuditEventRow[]>`
      SELECT ${COLUMNS} FROM (SELECT * FROM "AuditEvent" e WHERE ${where} ORDER BY e.id DESC LIMIT ${limit + 1}) e ${SEALS}
      ORDER BY e.id DESC`;
    const events = rows.slice(0, limit);
    return { events, nextCursor: rows.length > limit ? String(events[events.length - 1].id) : null, textScan: null };
  }

  const scanLimit = input.textScanLimit ?? TEXT_SCAN_LIMIT;
  const pattern = likePattern(input.filters.q);
  // One pass over the newest `scanLimit` rows of the other filters (their index, in id order), then
  // the substring test on those rows only: no join back to the table, no scan beyond the bound.
  const rows = await db.$queryRaw<AuditEventRow[]>`
    SELECT ${COLUMNS} FROM (
      SELECT * FROM (SELECT * FROM "AuditEvent" e WHERE ${where} ORDER BY e.id DESC LIMIT ${scanLimit}) e
      WHERE e.type ILIKE ${pattern} OR e."actorLabel" ILIKE ${pattern} OR e.requester ILIKE ${pattern} OR e.tool ILIKE ${pattern}
      ORDER BY e.id DESC LIMIT ${limit + 1}
    ) e ${SEALS}
    ORDER BY e.id DESC`;
  const events = rows.slice(0, limit);
  if (rows.length > limit) {
    return { events, nextCursor: String(events[events.length - 1].id), textScan: null };
  }
  // Fewer matches than a page: did the scan stop at its limit (more may follow) or at the end?
  const [window] = await db.$queryRaw<Array<{ scanned: bigint; floor: bigint | null }>>`
    SELECT count(*) AS scanned, min(id) AS floor FROM (SELECT e.id FROM "AuditEvent" e WHERE ${where} ORDER BY e.id DESC LIMIT ${scanLimit}) w`;
  const scanned = Number(window.scanned);
  const full = scanned >= scanLimit && window.floor !== null;
  return { events, nextCursor: full ? String(window.floor) : null, textScan: { scanned, limit: scanLimit } };
}
