import { z } from "zod";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { buildEvidencePack, zipEvidencePack } from "@/lib/audit/evidence-pack";
import { getDb } from "@/lib/db/client";
import { AppError, describeInvalid } from "@/lib/errors";
import { memberRoute } from "@/lib/server/boundary";

export const dynamic = "force-dynamic";

const Day = z.iso.date("a day as YYYY-MM-DD");
const Range = z.strictObject({ from: Day, to: Day }).refine((r) => r.from <= r.to, "“from” must not be after “to”.");

/**
 * GET /api/audit/evidence?from=YYYY-MM-DD&to=YYYY-MM-DD: the oversight evidence pack for those
 * days (lib/audit/evidence-pack.ts) as one ZIP archive. Auditors and admins; audited.
 */
export const GET = memberRoute({ name: "audit.evidence", permission: "audit:export" }, async (request, member) => {
  const parsed = Range.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!parsed.success) throw new AppError("invalid_range", `Choose the days to cover: ${describeInvalid(parsed.error)}`, 400);
  const { from, to } = parsed.data;
  const db = getDb();
  const tenantId = member.tenant.id;
  const pack = await buildEvidencePack(db, { tenantId, from, to });
  await appendAuditEvent(db, {
    tenantId, actor: { type: "user", id: member.user.id, label: member.user.email }, type: "audit.evidence_exported", outcome: "ok",
    subject: { type: "audit_log", id: null }, data: { from, to, verified: pack.verified },
  });
  return new Response(zipEvidencePack(pack), {
    headers: {
      "Content-Type": "application/zip",
      "Content-Disposition": `attachment; filename="evidence-${member.tenant.slug}-${from}-${to}.zip"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
});
