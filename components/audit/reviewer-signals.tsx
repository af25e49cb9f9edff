import type { ReviewerSignal } from "@/lib/review/reviewer-signals";

/** A duration a person reads at a glance: 850 ms, 12.4 s, 3.2 min, 5.1 h. */
export function formatDuration(ms: number | null): string {
  if (ms === null) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** Per-reviewer decision signals: approval rate, latency and time on screen (rubber-stamping shows here). */
export function ReviewerSignalsTable({ signals, windowDays }: { signals: ReviewerSignal[]; windowDays: number }) {
  return (
    <section aria-labelledby="reviewer-signals-heading" className="rounded-lg border border-slate-200 bg-white">
      <div className="border-b border-slate-100 px-4 py-2">
        <h2 id="reviewer-signals-heading" className="text-sm font-semibold">Reviewer signals</h2>
        <p className="text-xs text-slate-600">
          Last {windowDays} days, this organisation only. A high approval rate with short times on screen can mean approvals without reading.
        </p>
      </div>
      {signals.length === 0 ? (
        <p className="px-4 py-3 text-slate-600">No decisions in this period.</p>
      ) : (
        <table className="w-full text-left text-[0.85rem]" aria-labelledby="reviewer-signals-heading">
          <thead className="text-xs text-slate-600">
            <tr>
              <th scope="col" className="px-4 py-1.5 font-medium">Reviewer</th>
              <th scope="col" className="px-4 py-1.5 text-right font-medium">Decisions</th>
              <th scope="col" className="px-4 py-1.5 text-right font-medium">Approval rate</th>
              <th scope="col" className="px-4 py-1.5 text-right font-medium">Median latency (request → decision)</th>
              <th scope="col" className="px-4 py-1.5 text-right font-medium">Median time on screen</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {signals.map((s) => (
              <tr key={s.reviewerId}>
                <th scope="row" className="px-4 py-1.5 font-normal">{s.reviewer}</th>
                <td className="px-4 py-1.5 text-right tabular-nums">{s.decisions}</td>
                <td className="px-4 py-1.5 text-right tabular-nums">{Math.round(s.approvalRate * 100)}%</td>
                <td className="px-4 py-1.5 text-right tabular-nums">{formatDuration(s.medianLatencyMs)}</td>
                <td className="px-4 py-1.5 text-right tabular-nums">
                  {formatDuration(s.medianViewedMs)}
                  {s.viewedDecisions < s.decisions && <span className="text-xs text-slate-500"> ({s.viewedDecisions} of {s.decisions} reported)</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
