import { apiRoute } from "@/lib/api/api-route";
import { API_ROUTES } from "@/lib/api/api-routes";
import { auditInclusionProof } from "@/lib/audit/audit-proofs";

export const dynamic = "force-dynamic";

export const GET = apiRoute(API_ROUTES.getInclusionProof, async ({ db, tenant, query }) =>
  Response.json(await auditInclusionProof(db, tenant.id, query), { headers: { "Cache-Control": "no-store" } }));
