import { apiRoute } from "@/lib/api/api-route";
import { API_ROUTES } from "@/lib/api/api-routes";
import { waitForDecision } from "@/lib/api/wait-for-decision";

export const dynamic = "force-dynamic";

/** Long-poll: answers as soon as the action is no longer pending, or after the bounded timeout. */
export const GET = apiRoute(
  API_ROUTES.waitForDecision,
  async ({ db, key, tenant, params, query, request }) => {
    const result = await waitForDecision(
      db,
      { tenantId: tenant.id, actionId: params.id, apiKeyId: key.id },
      { timeoutSeconds: query.timeout, signal: request.signal },
    );
    return Response.json(result, { headers: { "Cache-Control": "no-store" } });
  },
);
