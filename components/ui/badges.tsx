/** Risk and status are always shown with colour AND text, never colour alone. */
const RISK_STYLES = {
  low: "bg-emerald-50 text-emerald-800 ring-emerald-600/30",
  medium: "bg-amber-50 text-amber-900 ring-amber-600/40",
  high: "bg-orange-100 text-orange-900 ring-orange-600/40",
  critical: "bg-red-100 text-red-900 ring-red-600/50",
} as const;

export type RiskLevelName = keyof typeof RISK_STYLES;

export function RiskBadge({ level, className = "" }: { level: RiskLevelName; className?: string }) {
  return (
    <span className={`inline-flex items-center rounded px-1.5 py-0.5 text-xs font-semibold uppercase tracking-wide ring-1 ring-inset ${RISK_STYLES[level]} ${className}`}>
      {level} risk
    </span>
  );
}

const STATUS_STYLES: Record<string, string> = {
  pending: "bg-sky-50 text-sky-900 ring-sky-600/30",
  approved: "bg-emerald-50 text-emerald-800 ring-emerald-600/30",
  executing: "bg-indigo-50 text-indigo-900 ring-indigo-600/30",
  succeeded: "bg-emerald-100 text-emerald-900 ring-emerald-700/30",
  completed: "bg-emerald-100 text-emerald-900 ring-emerald-700/30",
  rejected: "bg-red-50 text-red-800 ring-red-600/30",
  denied: "bg-red-50 text-red-800 ring-red-600/30",
  failed: "bg-red-100 text-red-900 ring-red-700/30",
  invalidated: "bg-orange-50 text-orange-900 ring-orange-600/30",
  expired: "bg-slate-100 text-slate-700 ring-slate-500/30",
  cancelled: "bg-slate-100 text-slate-700 ring-slate-500/30",
  unknown: "bg-fuchsia-50 text-fuchsia-900 ring-fuchsia-600/30",
  queued: "bg-slate-100 text-slate-700 ring-slate-500/30",
  running: "bg-indigo-50 text-indigo-900 ring-indigo-600/30",
  waiting_approval: "bg-sky-50 text-sky-900 ring-sky-600/30",
  // Upstream MCP tools
  new: "bg-sky-50 text-sky-900 ring-sky-600/30",
  held: "bg-orange-100 text-orange-900 ring-orange-600/40",
  gone: "bg-slate-100 text-slate-700 ring-slate-500/30",
};

export function StatusBadge({ status, className = "" }: { status: string; className?: string }) {
  const style = STATUS_STYLES[status] ?? "bg-slate-100 text-slate-700 ring-slate-500/30";
  return (
    <span className={`inline-flex items-center rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${style} ${className}`}>
      {status.replaceAll("_", " ")}
    </span>
  );
}
