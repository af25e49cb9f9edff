import type { Queryable } from "@/lib/db/sql";
import { readReviewerSignals } from "@/lib/db/statements/actions/read-reviewer-signals";

/** How far back the signals look. */
export const SIGNAL_WINDOW_DAYS = 90;

export type ReviewerSignal = {
  reviewerId: string;
  reviewer: string;
  decisions: number;
  approvalRate: number;
  medianLatencyMs: number | null;
  medianViewedMs: number | null;
  viewedDecisions: number;
};

/**
 * Automation-bias signals for admins and auditors (EU AI Act Art. 14(4)(b)): per reviewer of this
 * tenant over the last SIGNAL_WINDOW_DAYS days, the approval rate, the median request→decision
 * latency and the median time the arguments were on screen.
 */
export async function reviewerSignals(q: Queryable, tenantId: string, now = new Date()): Promise<ReviewerSignal[]> {
  const rows = await readReviewerSignals(q, { tenantId, since: new Date(now.getTime() - SIGNAL_WINDOW_DAYS * 86_400_000) });
  return rows.map((r) => ({
    reviewerId: r.reviewerId,
    reviewer: r.email ?? "a former member",
    decisions: r.decisions,
    approvalRate: r.decisions === 0 ? 0 : r.approvals / r.decisions,
    medianLatencyMs: r.medianLatencyMs,
    medianViewedMs: r.medianViewedMs,
    viewedDecisions: r.viewedDecisions,
  }));
}
