import { AppError } from "@/lib/errors";
import { cancelAction } from "@/lib/approvals/cancel-action";
import { apiRoute } from "@/lib/api/api-route";
import { API_ROUTES } from "@/lib/api/api-routes";
import { findScopedAction } from "@/lib/api/load-action-view";

export const dynamic = "force-dynamic";

/** Withdraws a pending or approved, unexecuted action this key submitted. */
export const POST = apiRoute(
  API_ROUTES.cancelAction,
  async ({ db, key, tenant, params, body, actor }) => {
    const action = await findScopedAction(db, { tenantId: tenant.id, actionId: params.id, apiKeyId: key.id });
    if (action.state === "expired") throw new AppError("not_cancellable", "This action is expired; it can no longer be cancelled.", 409);
    await cancelAction(db, { tenantId: tenant.id, actionId: action.id, actor, apiKeyId: key.id, reason: body.reason });
    return Response.json({ id: action.id, state: "cancelled" }, { headers: { "Cache-Control": "no-store" } });
  },
);
