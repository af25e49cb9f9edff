import { apiRoute } from "@/lib/api/api-route";
import { API_ROUTES } from "@/lib/api/api-routes";
import { loadActionView } from "@/lib/api/load-action-view";

export const dynamic = "force-dynamic";

/** An action this key submitted: state, decisions with reviewer notes, revision, hash, expiry, execution. */
export const GET = apiRoute(API_ROUTES.getAction, async ({ db, key, tenant, params }) => {
  const view = await loadActionView(db, { tenantId: tenant.id, actionId: params.id, apiKeyId: key.id });
  return Response.json(view, { headers: { "Cache-Control": "no-store" } });
});
