import type { DbTx } from "@/lib/db/client";
import { countActionsByRiskAndStatus } from "@/lib/db/statements/audit/count-actions-by-risk-and-status";
import { countDecisionsPerDay } from "@/lib/db/statements/audit/count-decisions-per-day";
import { countExpiriesPerDay } from "@/lib/db/statements/audit/count-expiries-per-day";
import { readTimesToDecision } from "@/lib/db/statements/audit/read-times-to-decision";
import type { ChartFilter } from "@/lib/db/statements/audit/chart-action-filter";

export type DecisionsPerDay = { day: string; approve: number; reject: number; expired: number };
export type TimeToDecisionBucket = { label: string; count: number };
export type OutcomesByRisk = { risk: "low" | "medium" | "high" | "critical"; outcomes: Record<OutcomeName, number> };
export type OutcomeName = "executed" | "approved" | "rejected" | "expired" | "denied" | "pending" | "other";

export type AuditCharts = {
  from: Date;
  to: Date;
  /** The chosen range was longer than MAX_CHART_DAYS: the charts cover its last MAX_CHART_DAYS days. */
  clipped: boolean;
  decisionsPerDay: DecisionsPerDay[];
  timeToDecision: { buckets: TimeToDecisionBucket[]; medianSeconds: number | null; p90Seconds: number | null; decided: number };
  outcomesByRisk: OutcomesByRisk[];
};

/** The longest period the charts cover (a day per bar); the events list and exports take any range. */
export const MAX_CHART_DAYS = 366;

const BUCKETS: Array<{ label: string; upTo: number }> = [
  { label: "< 1 min", upTo: 60 },
  { label: "1–5 min", upTo: 300 },
  { label: "5–30 min", upTo: 1800 },
  { label: "30 min–2 h", upTo: 7200 },
  { label: "2–24 h", upTo: 86_400 },
  { label: "> 1 day", upTo: Number.POSITIVE_INFINITY },
];

/** The time-to-decision chart looks at most this many decisions. */
const MAX_TIMES_TO_DECISION = 100_000;

const OUTCOME_OF: Record<string, OutcomeName> = {
  succeeded: "executed", approved: "approved", executing: "approved", rejected: "rejected", expired: "expired",
  denied: "denied", pending: "pending", failed: "other", invalidated: "other", cancelled: "other", unknown: "other",
};

/**
 * Charts over a bounded window (the filter's dates, else the last 30 days): decisions, time to
 * decision, outcomes by risk — of the actions matching `filter` (tool, risk, requester, status, a
 * reviewer's or a verdict's votes), as the events list below them is filtered.
 */
export async function getAuditCharts(db: DbTx, input: { tenantId: string; from?: string; to?: string; filter?: ChartFilter }): Promise<AuditCharts> {
  const to = input.to ? new Date(Date.parse(`${input.to}T00:00:00Z`) + 86_400_000) : new Date(Math.ceil(Date.now() / 86_400_000) * 86_400_000);
  const chosenFrom = input.from ? new Date(`${input.from}T00:00:00Z`) : new Date(to.getTime() - 30 * 86_400_000);
  // A bar per day, built here: the range anyone with audit:read types into the URL sets its cost.
  const clipped = to.getTime() - chosenFrom.getTime() > MAX_CHART_DAYS * 86_400_000;
  const from = clipped ? new Date(to.getTime() - MAX_CHART_DAYS * 86_400_000) : chosenFrom;

  const range = { tenantId: input.tenantId, from, to, filter: input.filter };
  const [decisions, expiries, durations, outcomes] = await Promise.all([
    countDecisionsPerDay(db, range),
    countExpiriesPerDay(db, range),
    readTimesToDecision(db, { ...range, limit: MAX_TIMES_TO_DECISION }),
    countActionsByRiskAndStatus(db, range),
  ]);

  const days = new Map<string, DecisionsPerDay>();
  for (let t = from.getTime(); t < to.getTime(); t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10);
    days.set(day, { day, approve: 0, reject: 0, expired: 0 });
  }
  for (const row of decisions) {
    const entry = days.get(row.day);
    if (entry && (row.verdict === "approve" || row.verdict === "reject")) entry[row.verdict] += row.count;
  }
  for (const row of expiries) {
    const entry = days.get(row.day);
    if (entry) entry.expired += row.count;
  }

  const seconds = durations.sort((a, b) => a - b);
  const quantile = (q: number) => (seconds.length ? seconds[Math.min(seconds.length - 1, Math.floor(q * seconds.length))] : null);
  const buckets = BUCKETS.map((b) => ({ label: b.label, count: 0 }));
  for (const s of seconds) buckets[BUCKETS.findIndex((b) => s < b.upTo)].count += 1;

  const risks: OutcomesByRisk["risk"][] = ["low", "medium", "high", "critical"];
  const outcomesByRisk = risks.map((risk) => {
    const counts: Record<OutcomeName, number> = { executed: 0, approved: 0, rejected: 0, expired: 0, denied: 0, pending: 0, other: 0 };
    for (const row of outcomes) if (row.risk === risk) counts[OUTCOME_OF[row.status] ?? "other"] += row.count;
    return { risk, outcomes: counts };
  });

  return {
    from, to, clipped,
    decisionsPerDay: [...days.values()],
    timeToDecision: { buckets, medianSeconds: quantile(0.5), p90Seconds: quantile(0.9), decided: seconds.length },
    outcomesByRisk,
  };
}
