import { apiRoute } from "@/lib/api/api-route";
import { API_ROUTES } from "@/lib/api/api-routes";
import { auditConsistencyProof } from "@/lib/audit/audit-proofs";

export const dynamic = "force-dynamic";

export const GET = apiRoute(API_ROUTES.getConsistencyProof, async ({ db, tenant, query }) =>
  Response.json(await auditConsistencyProof(db, tenant.id, query), { headers: { "Cache-Control": "no-store" } }));
