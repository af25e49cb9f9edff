import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { apiRoute } from "@/lib/api/api-route";
import { API_ROUTES } from "@/lib/api/api-routes";
import { executionResponse } from "@/lib/api/execution-response";
import { findScopedAction } from "@/lib/api/load-action-view";
import { requiredIdempotencyKey } from "@/lib/api/idempotency-key";

export const dynamic = "force-dynamic";

/**
 * Executes an approved action once. Tool calls answer JSON; code streams NDJSON. Any later call —
 * with the same Idempotency-Key or another — gets the recorded result, never a second run: the
 * approval itself is the unit of idempotency (SPEC invariant 3).
 */
export const POST = apiRoute(
  API_ROUTES.executeAction,
  async ({ db, key, tenant, params, body, actor, request }) => {
    const idempotencyKey = requiredIdempotencyKey(request.headers);
    const action = await findScopedAction(db, { tenantId: tenant.id, actionId: params.id, apiKeyId: key.id });
    await appendAuditEvent(db, {
      tenantId: tenant.id, actor, type: "api.execute_requested", outcome: "ok", subject: { type: "action", id: action.id },
      actionId: action.id, requester: actor.label, status: action.state,
      data: { idempotencyKey, payloadHash: body.payloadHash ?? null },
    });
    return executionResponse({
      db, tenantId: tenant.id, actionId: action.id, actor, kind: action.kind, state: action.state, currentHash: action.payloadHash,
      // Without a hash the caller executes whatever revision was approved; with one, only that one.
      payloadHash: body.payloadHash ?? action.payloadHash,
      // findScopedAction found the action only because this key proposed it.
      executor: { type: "requester" },
      signal: request.signal, format: "auto", idempotencyKey,
    });
  },
);
