import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { sealAuditChain } from "@/lib/audit/seal-audit-chain";
import { verifiableExportLines } from "@/lib/audit/verifiable-export";
import { auditFiltersQuery, parseAuditFilters } from "@/lib/audit/audit-filters";
import { csvHeader, csvLine, readableJsonLine } from "@/lib/audit/audit-export-format";
import { auditExportContext } from "@/lib/audit/audit-export-context";
import { searchAuditEvents } from "@/lib/audit/search-audit-events";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { memberRoute } from "@/lib/server/boundary";
import { sliceTimer } from "@/lib/scheduling/slice-timer";

export const dynamic = "force-dynamic";

const BATCH = 1_000;

/**
 * GET /api/audit/export?format=csv|json|jsonl&<filters>: the tenant's events matching the filters,
 * streamed in batches so memory stays flat on millions of rows. JSONL is the verifiable format
 * (lib/audit/verifiable-export.ts: leaves, signed checkpoints, proofs; check it with
 * `npm run verify`); CSV (spreadsheets) and `json` (JSON Lines too, named `.readable.jsonl`) are for reading, newest
 * first, with each event's MAC and leaf hash and, beside them, the action's summary and canonical
 * arguments, the reviewer's email, the note and the reason (computed from joins; the sealed events
 * are unchanged).
 */
export const GET = memberRoute({ name: "audit.export", permission: "audit:export" }, async (request, member) => {
  const url = new URL(request.url);
  const format = url.searchParams.get("format") ?? "csv";
  if (format !== "csv" && format !== "jsonl" && format !== "json") throw new AppError("invalid_format", "Choose format=csv, format=json or format=jsonl.", 400);
  const parsed = parseAuditFilters(url.searchParams);
  if (!parsed.ok) throw new AppError("invalid_filters", `Check the filters: ${parsed.errors.join("; ")}`, 400, { errors: parsed.errors });
  const filters = parsed.filters;
  const db = getDb();
  const tenantId = member.tenant.id;

  await appendAuditEvent(db, {
    tenantId, actor: { type: "user", id: member.user.id, label: member.user.email }, type: "audit.exported", outcome: "ok",
    subject: { type: "audit_log", id: null }, data: { format, filters: auditFiltersQuery(filters) },
  });
  // Everything written up to this request is in the chain before it is exported.
  await sealAuditChain(db, tenantId);

  const encoder = new TextEncoder();
  const headers = {
    "Content-Type": format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8",
    "Content-Disposition": `attachment; filename="audit-${member.tenant.slug}-${new Date().toISOString().slice(0, 19).replaceAll(":", "")}${format === "json" ? ".readable.jsonl" : `.${format}`}"`,
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
  };
  if (format === "jsonl") {
    const lines = verifiableExportLines(db, { tenantId, filters });
    return new Response(new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await lines.next();
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(next.value));
        } catch (error) {
          console.error("[countersign] audit export failed mid-stream:", error);
          controller.error(new Error("The export stopped early; try again."));
        }
      },
    }), { headers });
  }
  let cursor: bigint | null = null;
  let started = false;
  let done = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (!started) {
          started = true;
          if (format === "csv") controller.enqueue(encoder.encode(csvHeader()));
        }
        if (done) {
          controller.close();
          return;
        }
        const page = await searchAuditEvents(db, { tenantId, filters, cursor, limit: BATCH });
        const context = await auditExportContext(db, tenantId, page.events);
        const line = format === "csv" ? csvLine : readableJsonLine;
        // A page's lines can hold megabytes of arguments: written in slices the event loop turns between.
        const tick = sliceTimer();
        for (const event of page.events) {
          controller.enqueue(encoder.encode(line(event, context.get(String(event.id)))));
          await tick();
        }
        if (page.nextCursor === null) done = true;
        else cursor = BigInt(page.nextCursor);
      } catch (error) {
        console.error("[countersign] audit export failed mid-stream:", error);
        controller.error(new Error("The export stopped early; try again."));
      }
    },
  });
  return new Response(stream, { headers });
});
