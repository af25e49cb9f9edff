import Form from "next/form";
import Link from "next/link";
import { buttonClass } from "@/components/ui/button";
import type { AuditFilters } from "@/lib/audit/audit-filters";

export type FilterOptions = {
  tools: string[];
  reviewers: Array<{ id: string; email: string }>;
  statuses: string[];
  types: string[];
};

const field = "w-full rounded-md border border-slate-300 bg-white px-2 py-1 text-sm focus:border-indigo-600 focus:outline-none focus:ring-2 focus:ring-indigo-600/30";

function Select({ name, label, value, options }: { name: string; label: string; value?: string; options: Array<{ value: string; label: string }> }) {
  return (
    // The label names the field only (wrapping the select would make its options part of the name).
    <div>
      <label htmlFor={`audit-filter-${name}`} className="block text-xs font-medium text-slate-700">{label}</label>
      <select id={`audit-filter-${name}`} name={name} defaultValue={value ?? ""} className={`${field} mt-0.5`}>
        <option value="">Any</option>
        {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
    </div>
  );
}

/**
 * A GET form whose filters live in the URL, so a filtered view can be bookmarked and shared;
 * next/form applies them by client-side navigation (no full-page reload: the page keeps its
 * state and only the server-rendered parts are refetched), and still works without JavaScript.
 */
export function AuditFilterForm({ filters, options }: { filters: AuditFilters; options: FilterOptions }) {
  const plain = (values: string[]) => values.map((v) => ({ value: v, label: v.replaceAll("_", " ") }));
  return (
    <Form action="/audit" aria-label="Audit filters" className="rounded-lg border border-slate-200 bg-white p-3">
      <div className="grid grid-cols-2 gap-2 sm:grid-cols-4 lg:grid-cols-8">
        <label className="block text-xs font-medium text-slate-700">From<input type="date" name="from" defaultValue={filters.from} className={`${field} mt-0.5`} /></label>
        <label className="block text-xs font-medium text-slate-700">To<input type="date" name="to" defaultValue={filters.to} className={`${field} mt-0.5`} /></label>
        <Select name="tool" label="Tool" value={filters.tool} options={plain(options.tools)} />
        <Select name="verdict" label="Decision" value={filters.verdict} options={[{ value: "approve", label: "approved" }, { value: "reject", label: "rejected" }]} />
        <Select name="risk" label="Risk" value={filters.risk} options={plain(["low", "medium", "high", "critical"])} />
        <Select name="reviewer" label="Reviewer" value={filters.reviewer} options={options.reviewers.map((r) => ({ value: r.id, label: r.email }))} />
        <label className="block text-xs font-medium text-slate-700">Requester<input name="requester" defaultValue={filters.requester} placeholder="email or api:name" className={`${field} mt-0.5`} /></label>
        <Select name="status" label="Status" value={filters.status} options={plain(options.statuses)} />
      </div>
      <div className="mt-2 flex flex-wrap items-end gap-2">
        <div className="w-44"><Select name="type" label="Event type" value={filters.type} options={options.types.map((t) => ({ value: t, label: t }))} /></div>
        <label className="block min-w-60 flex-1 text-xs font-medium text-slate-700">
          Search text
          <input type="search" name="q" defaultValue={filters.q} placeholder="type, actor, tool, arguments, notes or reasons contain…" className={`${field} mt-0.5`} />
        </label>
        <button type="submit" className={buttonClass.primary}>Apply filters</button>
        <Link href="/audit" className={buttonClass.secondary}>Clear</Link>
      </div>
    </Form>
  );
}

/** Export buttons: a GET form to the streaming route with the same filters. */
export function AuditExportForm({ filters }: { filters: AuditFilters }) {
  return (
    <form method="get" action="/api/audit/export" className="flex items-center gap-2" aria-label="Export the filtered events">
      {Object.entries(filters).map(([key, value]) => (value === undefined ? null : <input key={key} type="hidden" name={key} value={String(value)} />))}
      <button type="submit" name="format" value="csv" className={buttonClass.secondary}>Export CSV</button>
      <button type="submit" name="format" value="json" className={buttonClass.secondary} title="JSON Lines (one object per line), with the action summary, arguments, reviewer email, note and reason">Export JSONL (readable)</button>
      <button type="submit" name="format" value="jsonl" className={buttonClass.secondary} title="The verifiable export: leaves, signed checkpoints and proofs for npm run verify">Export JSONL (verifiable)</button>
    </form>
  );
}

/** The oversight evidence pack for a range of days (GET /api/audit/evidence). */
export function EvidencePackForm({ from, to }: { from: string; to: string }) {
  return (
    <form method="get" action="/api/audit/evidence" className="flex flex-wrap items-end gap-2" aria-label="Export evidence for a range of days">
      <label className="flex flex-col text-sm">
        <span className="font-medium">Evidence from</span>
        <input type="date" name="from" required defaultValue={from} className="rounded-md border border-slate-300 px-2 py-1" />
      </label>
      <label className="flex flex-col text-sm">
        <span className="font-medium">to</span>
        <input type="date" name="to" required defaultValue={to} className="rounded-md border border-slate-300 px-2 py-1" />
      </label>
      <button type="submit" className={buttonClass.secondary} title="Events with proofs, checkpoints, keys, policies, roles, decision latencies and the verifier's result, as one ZIP">
        Export evidence
      </button>
    </form>
  );
}
