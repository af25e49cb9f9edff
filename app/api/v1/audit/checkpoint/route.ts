import { apiRoute } from "@/lib/api/api-route";
import { API_ROUTES } from "@/lib/api/api-routes";
import { auditLogInfo } from "@/lib/audit/audit-proofs";

export const dynamic = "force-dynamic";

export const GET = apiRoute(API_ROUTES.getAuditLog, async ({ db, tenant }) =>
  Response.json(await auditLogInfo(db, tenant.id), { headers: { "Cache-Control": "no-store" } }));
