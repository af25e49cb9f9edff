import type { Db } from "@/lib/db/client";
import { thenSeal } from "@/lib/audit/seal-audit-chain";
import { AppError } from "@/lib/errors";
import { appendAuditEvent, type AuditActor } from "@/lib/audit/append-audit-event";
import { markTaskRunnable } from "@/lib/approvals/task-wakeup";

export type CancelInput = {
  tenantId: string;
  actionId: string;
  actor: AuditActor;
  /** Only the requester (user or API key) or an admin may cancel. */
  requester: { userId?: string; apiKeyId?: string; isAdmin?: boolean };
  reason?: string;
};

/** Withdraws a pending or approved (unexecuted) action. */
export async function cancelAction(db: Db, input: CancelInput): Promise<{ status: "cancelled" }> {
  const outcome = await thenSeal(db, input.tenantId, db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<Array<{ id: string }>>`
      SELECT id FROM "Action" WHERE id = ${input.actionId}::uuid AND "tenantId" = ${input.tenantId}::uuid FOR UPDATE`;
    if (rows.length === 0) return new AppError("not_found", "That action was not found.", 404);
    const action = await tx.action.findFirstOrThrow({ where: { id: input.actionId, tenantId: input.tenantId } });
    const own =
      (input.requester.userId && action.requesterUserId === input.requester.userId) ||
      (input.requester.apiKeyId && action.requesterApiKeyId === input.requester.apiKeyId);
    if (!own && !input.requester.isAdmin) return new AppError("forbidden", "Only the requester or an admin may cancel this action.", 403);
    if (!["pending", "approved"].includes(action.status)) {
      return new AppError("not_cancellable", `This action is ${action.status}; it can no longer be cancelled.`, 409);
    }
    await tx.action.update({
      where: { id: action.id },
      data: { status: "cancelled", decidedAt: new Date(), statusReason: input.reason?.trim() || "Cancelled by the requester." },
    });
    await appendAuditEvent(tx, {
      tenantId: input.tenantId, actor: input.actor, type: "action.cancelled", outcome: "ok", subject: { type: "action", id: action.id },
      actionId: action.id, tool: action.tool, riskLevel: action.riskLevel, requester: action.requesterLabel, status: "cancelled",
      data: { revision: action.currentRevision, reason: input.reason?.trim() || null },
    });
    await markTaskRunnable(tx, action.taskId);
    return null;
  }));
  if (outcome) {
    await appendAuditEvent(db, {
      tenantId: input.tenantId, actor: input.actor, type: "action.cancel_refused", outcome: "refused",
      subject: { type: "action", id: input.actionId }, status: outcome.code, data: { message: outcome.message, actionId: input.actionId },
    });
    throw outcome;
  }
  return { status: "cancelled" };
}
