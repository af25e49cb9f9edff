import { z } from "zod";
import { thenSeal } from "@/lib/audit/seal-audit-chain";
import { assertCanonicalizable } from "@/lib/canonical/assert-canonicalizable";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { requireTool } from "@/lib/tools/registry";
import { memberAuditActor, type Member } from "@/lib/approvals/actors";
import { createNextRevision, type NextRevision } from "@/lib/approvals/create-revision";
import { markTaskRunnable } from "@/lib/approvals/task-wakeup";

export type EditInput = {
  tenantId: string;
  actionId: string;
  editor: Member;
  /** The hash of the revision the editor was looking at. */
  payloadHash: string;
  /** New arguments (for code tools `{ code, language }`). */
  args: unknown;
};

/**
 * A reviewer's edit: revision n+1 with a diff against n. The old revision's votes are void and
 * the new one needs its own approval — by someone other than the editor.
 */
export async function editAction(db: Db, input: EditInput): Promise<NextRevision> {
  const actor = memberAuditActor(input.editor);
  try {
    return await thenSeal(db, input.tenantId, db.$transaction(async (tx) => {
      const locked = await tx.$queryRaw<Array<{ id: string }>>`
        SELECT id FROM "Action" WHERE id = ${input.actionId}::uuid AND "tenantId" = ${input.tenantId}::uuid FOR UPDATE`;
      if (locked.length === 0) throw new AppError("not_found", "That action was not found.", 404);
      const action = await tx.action.findFirstOrThrow({ where: { id: input.actionId, tenantId: input.tenantId } });
      if (!["pending", "approved"].includes(action.status)) {
        throw new AppError("not_editable", `This action is ${action.status}; only pending or approved actions can be edited.`, 409);
      }
      if (!input.editor.roles.some((role) => action.eligibleRoles.includes(role))) {
        throw new AppError("not_eligible", `Only ${action.eligibleRoles.join(" or ")} members may edit this action.`, 403);
      }
      if (action.requesterUserId === input.editor.userId) {
        throw new AppError("self_edit", "You requested this action; ask your agent for a new proposal instead.", 403);
      }
      if (input.payloadHash !== action.payloadHash) {
        throw new AppError("stale_hash", `The action changed since you opened it; revision ${action.currentRevision} is current.`, 409);
      }
      const tool = requireTool(action.tool);
      assertCanonicalizable(input.args);
      const parsed = tool.args.safeParse(input.args);
      if (!parsed.success) throw new AppError("invalid_args", `The edited arguments are not valid: ${z.prettifyError(parsed.error)}`, 400);
      const next = await createNextRevision(tx, {
        tenantId: input.tenantId, actionId: action.id, fromRevision: action.currentRevision, tool, args: parsed.data,
        origin: `edited by ${input.editor.label}`, createdByUserId: input.editor.userId, actor,
      });
      if (next.status !== "pending") await markTaskRunnable(tx, action.taskId);
      return next;
    }));
  } catch (error) {
    if (error instanceof AppError || error instanceof Error) {
      await appendAuditEvent(db, {
        tenantId: input.tenantId, actor, type: "action.edit_refused", outcome: "refused",
        subject: { type: "action", id: input.actionId }, reviewerId: input.editor.userId,
        status: error instanceof AppError ? error.code : "error",
        data: { message: error instanceof AppError ? error.message : "unexpected error", actionId: input.actionId },
      });
    }
    throw error;
  }
}
