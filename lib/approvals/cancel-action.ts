import type { Db } from "@/lib/db/client";
import { sqlTransaction } from "@/lib/db/sql";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { auditBodyOf, type AuditActor } from "@/lib/audit/append-audit-event";
import { AppError, markAudited } from "@/lib/errors";
import { insertAuditEvent } from "@/lib/db/statements/audit/append-audit-event";
import { lockAction } from "@/lib/db/statements/actions/lock-action";
import { lockLiveApiKey } from "@/lib/db/statements/api-keys/lock-live-api-key";
import { settleAction } from "@/lib/db/statements/actions/settle-action";

export type CancelInput = {
  tenantId: string;
  actionId: string;
  actor: AuditActor;
  /** The API key asking: only the key that proposed the action may withdraw it. */
  apiKeyId: string;
  reason?: string;
};

/**
 * Withdraws a pending or approved (unexecuted, unexpired) action for the API key that proposed it,
 * in one transaction holding the action's lock and the key's (a key revoked before the cancel is
 * refused, one being revoked waits for it). Refusals are audited.
 */
export async function cancelAction(db: Db, input: CancelInput): Promise<{ status: "cancelled" }> {
  const reason = input.reason?.trim() || null;
  const refusal = await sqlTransaction(db, async (tx): Promise<AppError | null> => {
    const action = await lockAction(tx, { tenantId: input.tenantId, actionId: input.actionId });
    let error: AppError | null = null;
    if (!action) error = new AppError("not_found", "That action was not found.", 404);
    else if (action.requesterApiKeyId !== input.apiKeyId) error = new AppError("forbidden", "Only the API key that proposed this action may cancel it.", 403);
    else if (!(await lockLiveApiKey(tx, { tenantId: input.tenantId, apiKeyId: input.apiKeyId }))) {
      error = new AppError("api_key_revoked", "That API key has been revoked.", 401);
    } else {
      const cancelled = await settleAction(tx, {
        tenantId: input.tenantId, actionId: action.id, from: ["pending", "approved"], to: "cancelled", unexpired: true,
        reason: reason ?? "Cancelled by the requester.",
        event: auditBodyOf({
          tenantId: input.tenantId, actor: input.actor, type: "action.cancelled", outcome: "ok", subject: { type: "action", id: action.id },
          actionId: action.id, tool: action.tool, riskLevel: action.riskLevel, requester: action.requesterLabel, status: "cancelled",
          data: { revision: action.currentRevision, reason },
        }),
      });
      // Under the action's lock its status cannot have moved: a pending or approved action the
      // statement did not settle had expired (database clock), whether or not the sweeper marked it.
      if (!cancelled) {
        error = action.status === "pending" || action.status === "approved"
          ? new AppError("expired", "The approval window has closed; the action expired and can no longer be cancelled.", 409)
          : new AppError("not_cancellable", `This action is ${action.status}; it can no longer be cancelled.`, 409);
      }
    }
    if (error) {
      await insertAuditEvent(tx, auditBodyOf({
        tenantId: input.tenantId, actor: input.actor, type: "action.cancel_refused", outcome: "refused",
        subject: { type: "action", id: input.actionId }, status: error.code, data: { message: error.message, actionId: input.actionId },
      }));
    }
    return error;
  });
  void requestSeal(db, input.tenantId);
  if (refusal) throw markAudited(refusal);
  return { status: "cancelled" };
}
