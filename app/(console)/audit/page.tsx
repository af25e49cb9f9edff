import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { getAuditCharts } from "@/lib/audit/audit-charts";
import { AUDIT_EVENT_TYPES } from "@/lib/audit/audit-event-types";
import { AUDIT_FILTER_STATUSES, auditFiltersQuery, parseAuditFilters, type AuditFilters } from "@/lib/audit/audit-filters";
import { parseAuditCursor, searchAuditEvents, type AuditSearchResult } from "@/lib/audit/search-audit-events";
import { auditKeys } from "@/lib/audit/audit-keys";
import { evidenceStatus } from "@/lib/audit/evidence-status";
import { getDb } from "@/lib/db/client";
import { listMembers, type MemberListItem } from "@/lib/members/list-members";
import { requirePageMember } from "@/lib/server/acting-member";
import { toolsForTenant } from "@/lib/tools/tenant-tools";
import { EmptyState, PageHeader } from "@/components/shell/page-header";
import { buttonClass } from "@/components/ui/button";
import { AuditChartsView } from "@/components/audit/audit-charts";
import { AuditExportForm, AuditFilterForm, EvidencePackForm } from "@/components/audit/audit-filter-form";
import { AuditTable } from "@/components/audit/audit-table";
import { ChainStatus } from "@/components/audit/chain-status";
import { EvidenceActions } from "@/components/audit/evidence-actions";
import { ReviewerSignalsTable } from "@/components/audit/reviewer-signals";
import { reviewerSignals, SIGNAL_WINDOW_DAYS } from "@/lib/review/reviewer-signals";
import { checkpointNowAction, verifyEverythingAction } from "./actions";

export const metadata: Metadata = { title: "Audit" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/**
 * Verifies what was added since the latest signed checkpoint (reads only: a visit never writes),
 * beside the last full verification and the failures the console remembers until resolved.
 */
async function ChainVerification({ tenantId }: { tenantId: string }) {
  const status = await evidenceStatus(getDb(), tenantId);
  return <ChainStatus {...status} tenantId={tenantId} verifierKey={auditKeys().verifierKey} now={new Date()} />;
}

async function ReviewerSignals({ tenantId }: { tenantId: string }) {
  return <ReviewerSignalsTable signals={await reviewerSignals(getDb(), tenantId)} windowDays={SIGNAL_WINDOW_DAYS} />;
}

async function Charts({ tenantId, filters }: { tenantId: string; filters: AuditFilters }) {
  const filter = { tool: filters.tool, risk: filters.risk, requester: filters.requester, status: filters.status, reviewerId: filters.reviewer, verdict: filters.verdict, text: filters.q };
  return <AuditChartsView charts={await getAuditCharts(getDb(), { tenantId, from: filters.from, to: filters.to, filter })} />;
}

/** The evidence pack's default range: the last 30 days, today included (UTC). */
function lastThirtyDays(): { from: string; to: string } {
  const today = new Date();
  return { from: new Date(today.getTime() - 29 * 86_400_000).toISOString().slice(0, 10), to: today.toISOString().slice(0, 10) };
}

function Placeholder({ label, className = "h-10" }: { label: string; className?: string }) {
  return <div role="status" className={`flex items-center rounded-lg border border-slate-200 bg-white px-4 text-slate-600 ${className}`}>{label}</div>;
}

export default async function AuditPage({ searchParams }: { searchParams: SearchParams }) {
  const member = await requirePageMember("audit:read", "/audit");
  const params = await searchParams;
  const parsed = parseAuditFilters(params);
  const filters: AuditFilters = parsed.ok ? parsed.filters : {};
  const cursorParam = Array.isArray(params.cursor) ? params.cursor[0] : params.cursor;
  const cursor = parseAuditCursor(cursorParam);
  const db = getDb();
  const tenantId = member.tenant.id;

  const [page, members, tools] = await Promise.all([
    parsed.ok ? searchAuditEvents(db, { tenantId, filters, cursor }) : Promise.resolve(null),
    listMembers(db, tenantId),
    toolsForTenant(db, tenantId),
  ]);
  const reviewerEmail = new Map(members.map((m) => [m.userId, m.email]));
  const options = filterOptions(members, tools);
  const canExport = member.roles.includes("auditor") || member.roles.includes("admin");

  return (
    <>
      <PageHeader title="Audit" description="Every proposal, decision, refusal, execution and sign-in in this organisation, in a Merkle tree whose signed checkpoints anyone can verify offline.">
        {canExport && <AuditExportForm filters={filters} />}
      </PageHeader>
      <div className="space-y-4">
        <Suspense fallback={<Placeholder label="Verifying the evidence added since the latest checkpoint…" />}>
          <ChainVerification tenantId={tenantId} />
        </Suspense>
        {canExport && (
          <div className="flex flex-wrap items-end justify-between gap-3 rounded-lg border border-slate-200 bg-white px-4 py-3">
            <EvidenceActions checkpoint={checkpointNowAction} verify={verifyEverythingAction} />
            <EvidencePackForm {...lastThirtyDays()} />
          </div>
        )}
        <AuditFilterForm filters={filters} options={options} />
        {!parsed.ok && <FilterProblems errors={parsed.errors} />}
        <Suspense fallback={<Placeholder label="Drawing charts…" className="h-52" />}>
          <Charts tenantId={tenantId} filters={filters} />
        </Suspense>
        <Suspense fallback={<Placeholder label="Reading reviewer signals…" />}>
          <ReviewerSignals tenantId={tenantId} />
        </Suspense>
        {page && <AuditEvents page={page} olderPage={cursor !== null} filters={filters} reviewerEmail={reviewerEmail} />}
      </div>
    </>
  );
}

/** The choices the filter form offers: this tenant's tools, its reviewers, every status and event type. */
function filterOptions(members: MemberListItem[], tools: { name: string }[]) {
  return {
    tools: tools.map((t) => t.name),
    reviewers: members.filter((m) => m.roles.includes("reviewer") || m.roles.includes("admin")).map((m) => ({ id: m.userId, email: m.email })),
    statuses: [...AUDIT_FILTER_STATUSES],
    types: [...AUDIT_EVENT_TYPES],
  };
}

function FilterProblems({ errors }: { errors: string[] }) {
  return (
    <div role="alert" className="rounded-md bg-red-50 px-3 py-2 text-red-900">
      <p className="font-medium">These filters cannot be applied:</p>
      <ul className="list-disc pl-5">{errors.map((e) => <li key={e}>{e}</li>)}</ul>
    </div>
  );
}

/** One page of matching events, newest first, with the links to the newest and to older pages. */
function AuditEvents({ page, olderPage, filters, reviewerEmail }: { page: AuditSearchResult; olderPage: boolean; filters: AuditFilters; reviewerEmail: Map<string, string> }) {
  const filtered = Object.keys(filters).length > 0;
  return (
    <section aria-labelledby="events-heading" className="space-y-2">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="events-heading" className="font-semibold">
          Events {olderPage && <span className="font-normal text-slate-600">(older page)</span>}
        </h2>
        {page.textScan && (
          <p className="text-xs text-slate-600">
            Text search looked through {page.textScan.scanned.toLocaleString("en-US")} events
            {page.textScan.scanned >= page.textScan.limit ? " (its limit per page); “Older events” searches further back, or narrow the dates." : "."}
          </p>
        )}
      </div>
      {page.events.length === 0 ? (
        <EmptyState title={filtered ? "No events match these filters" : "No events yet"}>
          {filtered
            ? page.nextCursor ? "None in this stretch; use “Older events” to keep searching." : "Widen the date range or clear a filter."
            : "Events appear as requesters start tasks, agents propose actions and reviewers decide them."}
        </EmptyState>
      ) : (
        <AuditTable events={page.events} reviewerEmail={reviewerEmail} />
      )}
      <nav aria-label="Pages" className="flex gap-2">
        {olderPage && <Link className={buttonClass.secondary} href={`/audit?${auditFiltersQuery(filters)}`}>Newest events</Link>}
        {page.nextCursor && <Link className={buttonClass.secondary} href={`/audit?${auditFiltersQuery(filters, { cursor: page.nextCursor })}`}>Older events →</Link>}
      </nav>
    </section>
  );
}
