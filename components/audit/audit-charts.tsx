import { formatSeconds } from "@/components/ui/format";
import { MAX_CHART_DAYS, type AuditCharts, type OutcomeName } from "@/lib/audit/audit-charts";

// Plain SVG and Tailwind. Every chart carries its numbers as text too (legend, labels, <title>).

function Card({ title, subtitle, children }: { title: string; subtitle?: string; children: React.ReactNode }) {
  return (
    <figure className="rounded-lg border border-slate-200 bg-white p-3">
      <figcaption className="mb-2">
        <span className="font-semibold">{title}</span>
        {subtitle && <span className="ml-2 text-xs text-slate-600">{subtitle}</span>}
      </figcaption>
      {children}
    </figure>
  );
}

function Legend({ items }: { items: Array<{ label: string; className: string; value?: number }> }) {
  return (
    <ul className="mt-2 flex flex-wrap gap-x-3 gap-y-1 text-xs text-slate-700">
      {items.map((i) => (
        <li key={i.label} className="flex items-center gap-1">
          <span aria-hidden className={`inline-block h-2.5 w-2.5 rounded-sm ${i.className}`} />
          {i.label}{i.value !== undefined && `: ${i.value.toLocaleString("en-US")}`}
        </li>
      ))}
    </ul>
  );
}

function DecisionsOverTime({ days }: { days: AuditCharts["decisionsPerDay"] }) {
  const max = Math.max(1, ...days.map((d) => d.approve + d.reject + d.expired));
  const width = 600;
  const height = 140;
  const slot = width / Math.max(days.length, 1);
  const bar = Math.max(2, slot * 0.7);
  const total = (k: "approve" | "reject" | "expired") => days.reduce((s, d) => s + d[k], 0);
  return (
    <>
      <svg viewBox={`0 0 ${width} ${height + 16}`} className="h-44 w-full" role="img" aria-label={`Decisions per day: ${total("approve")} approved, ${total("reject")} rejected, ${total("expired")} expired`}>
        <line x1={0} x2={width} y1={height} y2={height} className="stroke-slate-300" />
        {days.map((d, i) => {
          const x = i * slot + (slot - bar) / 2;
          let y = height;
          const segments = [
            { n: d.approve, cls: "fill-emerald-600" },
            { n: d.reject, cls: "fill-red-600" },
            { n: d.expired, cls: "fill-slate-400" },
          ];
          return (
            <g key={d.day}>
              <title>{`${d.day}: ${d.approve} approved, ${d.reject} rejected, ${d.expired} expired`}</title>
              {segments.map((s, j) => {
                const h = (s.n / max) * (height - 4);
                y -= h;
                return s.n > 0 ? <rect key={j} x={x} y={y} width={bar} height={h} className={s.cls} /> : null;
              })}
              {(i === 0 || i === days.length - 1 || i % 7 === 0) && (
                <text x={x + bar / 2} y={height + 12} textAnchor="middle" className="fill-slate-500 text-[9px]">{d.day.slice(5)}</text>
              )}
            </g>
          );
        })}
        <text x={2} y={10} className="fill-slate-500 text-[9px]">{max} / day</text>
      </svg>
      <Legend items={[
        { label: "approved", className: "bg-emerald-600", value: total("approve") },
        { label: "rejected", className: "bg-red-600", value: total("reject") },
        { label: "expired", className: "bg-slate-400", value: total("expired") },
      ]} />
    </>
  );
}

function TimeToDecision({ data }: { data: AuditCharts["timeToDecision"] }) {
  const max = Math.max(1, ...data.buckets.map((b) => b.count));
  return (
    <>
      <ul className="space-y-1 text-xs" aria-label="Time from request to decision">
        {data.buckets.map((b) => (
          <li key={b.label} className="grid grid-cols-[5.5rem_1fr_3rem] items-center gap-2">
            <span className="text-slate-700">{b.label}</span>
            <span className="h-3 rounded-sm bg-slate-100">
              <span className="block h-3 rounded-sm bg-indigo-600" style={{ width: `${(b.count / max) * 100}%` }} />
            </span>
            <span className="text-right tabular-nums">{b.count.toLocaleString("en-US")}</span>
          </li>
        ))}
      </ul>
      <p className="mt-2 text-xs text-slate-700">
        {data.decided === 0
          ? "No decided actions in this period."
          : `${data.decided.toLocaleString("en-US")} decided · median ${formatSeconds(data.medianSeconds ?? 0)} · 90th percentile ${formatSeconds(data.p90Seconds ?? 0)}`}
      </p>
    </>
  );
}

const OUTCOME_STYLE: Record<OutcomeName, { cls: string; label: string }> = {
  executed: { cls: "bg-emerald-600", label: "executed" },
  approved: { cls: "bg-emerald-300", label: "approved, not yet run" },
  rejected: { cls: "bg-red-600", label: "rejected" },
  denied: { cls: "bg-red-900", label: "denied by policy" },
  expired: { cls: "bg-slate-400", label: "expired" },
  pending: { cls: "bg-sky-400", label: "pending" },
  other: { cls: "bg-amber-500", label: "failed / invalidated / cancelled" },
};

function OutcomesByRisk({ rows }: { rows: AuditCharts["outcomesByRisk"] }) {
  const names = Object.keys(OUTCOME_STYLE) as OutcomeName[];
  return (
    <>
      <ul className="space-y-1.5 text-xs" aria-label="Outcomes by risk level">
        {rows.map((row) => {
          const total = names.reduce((s, n) => s + row.outcomes[n], 0);
          return (
            <li key={row.risk} className="grid grid-cols-[4.5rem_1fr_3rem] items-center gap-2">
              <span className="font-medium capitalize text-slate-700">{row.risk}</span>
              <span className="flex h-3 overflow-hidden rounded-sm bg-slate-100" title={names.map((n) => `${OUTCOME_STYLE[n].label}: ${row.outcomes[n]}`).join(", ")}>
                {total > 0 && names.map((n) => (row.outcomes[n] > 0 ? <span key={n} className={OUTCOME_STYLE[n].cls} style={{ width: `${(row.outcomes[n] / total) * 100}%` }} /> : null))}
              </span>
              <span className="text-right tabular-nums">{total.toLocaleString("en-US")}</span>
            </li>
          );
        })}
      </ul>
      <Legend items={names.map((n) => ({ label: OUTCOME_STYLE[n].label, className: OUTCOME_STYLE[n].cls }))} />
    </>
  );
}

export function AuditChartsView({ charts }: { charts: AuditCharts }) {
  const period = `${charts.from.toISOString().slice(0, 10)} – ${new Date(charts.to.getTime() - 1).toISOString().slice(0, 10)}${
    charts.clipped ? ` (the last ${MAX_CHART_DAYS} days of the chosen range)` : ""
  }`;
  return (
    <div className="grid grid-cols-1 gap-3 lg:grid-cols-3">
      <Card title="Decisions over time" subtitle={period}><DecisionsOverTime days={charts.decisionsPerDay} /></Card>
      <Card title="Time to decision" subtitle="request → quorum or rejection"><TimeToDecision data={charts.timeToDecision} /></Card>
      <Card title="Outcomes by risk level" subtitle="actions proposed in the period"><OutcomesByRisk rows={charts.outcomesByRisk} /></Card>
    </div>
  );
}
