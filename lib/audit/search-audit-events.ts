import type { DbTx } from "@/lib/db/client";
import type { AuditFilters } from "@/lib/audit/audit-filters";
import type { AuditEventFilter, AuditEventRow } from "@/lib/db/statements/audit/audit-event-filter";
import { findAuditIdCeiling } from "@/lib/db/statements/audit/find-audit-id-ceiling";
import { findAuditIdFloor } from "@/lib/db/statements/audit/find-audit-id-floor";
import { measureAuditTextScan } from "@/lib/db/statements/audit/measure-audit-text-scan";
import { readAuditEventsMatchingText } from "@/lib/db/statements/audit/read-audit-events-matching-text";
import { readAuditEventsPage } from "@/lib/db/statements/audit/read-audit-events-page";

/** An event (its tenant is the one searched) with its place in the chain (null until it is sealed, moments after it was written). */
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

const dayStart = (day: string) => new Date(`${day}T00:00:00.000Z`);
const nextDayStart = (day: string) => new Date(dayStart(day).getTime() + 86_400_000);

/**
 * Turns a date range into an id range, so every filter walks its own (tenantId, <column>, id desc)
 * index and pages are a keyset on id. Ids grow with `at`, but concurrent writers may take them in
 * slightly different orders: each bound is the extreme id of the 100 events nearest it in time,
 * and the time test stays.
 */
async function idBounds(db: DbTx, tenantId: string, filters: AuditFilters): Promise<{ minId?: bigint; maxId?: bigint } | "empty"> {
  const bounds: { minId?: bigint; maxId?: bigint } = {};
  if (filters.from) {
    const floor = await findAuditIdFloor(db, { tenantId, atOrAfter: dayStart(filters.from) });
    if (floor === null) return "empty";
    bounds.minId = floor;
  }
  if (filters.to) {
    const ceiling = await findAuditIdCeiling(db, { tenantId, before: nextDayStart(filters.to) });
    if (ceiling === null) return "empty";
    bounds.maxId = ceiling;
  }
  return bounds;
}

/** Every condition of the filters except free text, as the statements take them. */
function eventFilter(tenantId: string, filters: AuditFilters, bounds: { minId?: bigint; maxId?: bigint }, cursor: bigint | null): AuditEventFilter {
  return {
    tenantId,
    tool: filters.tool,
    verdict: filters.verdict,
    riskLevel: filters.risk,
    reviewerId: filters.reviewer,
    requester: filters.requester,
    status: filters.status,
    type: filters.type,
    atOrAfter: filters.from ? dayStart(filters.from) : undefined,
    before: filters.to ? nextDayStart(filters.to) : undefined,
    ...bounds,
    belowId: cursor ?? undefined,
  };
}

export function parseAuditCursor(value: string | null | undefined): bigint | null {
  return value && /^\d{1,19}$/.test(value) ? BigInt(value) : null;
}

/**
 * One page of the tenant's events matching the filters, newest first, keyset cursor (never
 * OFFSET). Free text is a bounded substring scan: at most TEXT_SCAN_LIMIT filtered events a page,
 * continued from where it stopped, so a rare word costs bounded time per page.
 */
export async function searchAuditEvents(
  db: DbTx,
  input: { tenantId: string; filters: AuditFilters; cursor?: bigint | null; limit?: number; textScanLimit?: number },
): Promise<AuditSearchResult> {
  const limit = Math.min(Math.max(input.limit ?? AUDIT_PAGE_SIZE, 1), 5_000);
  const bounds = await idBounds(db, input.tenantId, input.filters);
  if (bounds === "empty") return { events: [], nextCursor: null, textScan: input.filters.q ? { scanned: 0, limit: 0 } : null };
  const filter = eventFilter(input.tenantId, input.filters, bounds, input.cursor ?? null);

  // One more than a page: whether there is a next page.
  if (!input.filters.q) {
    const rows = await readAuditEventsPage(db, { filter, limit: limit + 1 });
    const events = rows.slice(0, limit);
    return { events, nextCursor: rows.length > limit ? String(events[events.length - 1].id) : null, textScan: null };
  }

  const scanLimit = input.textScanLimit ?? TEXT_SCAN_LIMIT;
  const rows = await readAuditEventsMatchingText(db, { filter, text: input.filters.q, scanLimit, limit: limit + 1 });
  const events = rows.slice(0, limit);
  if (rows.length > limit) {
    return { events, nextCursor: String(events[events.length - 1].id), textScan: null };
  }
  // Fewer matches than a page: did the scan stop at its limit (more may follow) or at the end?
  const window = await measureAuditTextScan(db, { filter, scanLimit });
  const full = window.scanned >= scanLimit && window.floor !== null;
  return { events, nextCursor: full ? String(window.floor) : null, textScan: { scanned: window.scanned, limit: scanLimit } };
}
