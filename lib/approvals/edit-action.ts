import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { auditBodyOf } from "@/lib/audit/append-audit-event";
import { assertCanonicalizable } from "@/lib/canonical/assert-canonicalizable";
import type { Db } from "@/lib/db/client";
import { inSavepoint, sqlTransaction, type SqlClient } from "@/lib/db/sql";
import { urgently } from "@/lib/scheduling/urgency";
import { AppError, markAudited, toPublicError } from "@/lib/errors";
import { insertAuditEvent } from "@/lib/db/statements/audit/append-audit-event";
import { lockAction } from "@/lib/db/statements/actions/lock-action";
import { lockActingMembership } from "@/lib/db/statements/tenant/lock-acting-membership";
import { sessionEndedError } from "@/lib/auth/session-ended";
import { readVoterStanding } from "@/lib/db/statements/actions/read-voter-standing";
import { findTenantTool } from "@/lib/tools/tenant-tools";
import { memberAuditActor, type Member } from "@/lib/approvals/actors";
import { createNextRevision, type NextRevision } from "@/lib/approvals/create-next-revision";

const EXPIRED_MESSAGE = "The approval window has closed; an expired action cannot be edited.";

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
 * A reviewer's edit: revision n+1 with a diff against n, in one transaction holding the action's
 * lock. The editor must be someone who may decide it (approval-rules.ts) other than its requester;
 * the old revision's votes are void and the new one needs its own approval — by someone other
 * than the editor. Refusals are audited in the same transaction.
 */
export async function editAction(db: Db, input: EditInput): Promise<NextRevision> {
  const actor = memberAuditActor(input.editor);
  // Under the action's lock: ahead of new work for connections and compute threads (urgency.ts).
  const result = await sqlTransaction(db, (tx) => urgently(async (): Promise<{ ok: true; next: NextRevision } | { ok: false; error: unknown }> => {
    try {
      // In a savepoint: a statement that fails undoes only its own work, and the refusal is still audited.
      return { ok: true, next: await inSavepoint(tx, () => revise(tx, input)) };
    } catch (error) {
      const { body } = toPublicError(error, "editAction");
      await insertAuditEvent(tx, auditBodyOf({
        tenantId: input.tenantId, actor, type: "action.edit_refused", outcome: "refused",
        subject: { type: "action", id: input.actionId }, reviewerId: input.editor.userId, status: body.code,
        data: { message: body.message.slice(0, 500), actionId: input.actionId },
      }));
      return { ok: false, error };
    }
  }));
  void requestSeal(db, input.tenantId);
  if (!result.ok) throw markAudited(result.error);
  return result.next;
}

async function revise(tx: SqlClient, input: EditInput): Promise<NextRevision> {
  // The editor's membership before the action (lock-acting-membership.ts): a role change waits for
  // this edit, or commits first and the standing below sees it.
  const { sessionLive } = await lockActingMembership(tx, { tenantId: input.tenantId, userId: input.editor.userId, sessionId: input.editor.sessionId });
  if (!sessionLive) throw sessionEndedError();
  const action = await lockAction(tx, { tenantId: input.tenantId, actionId: input.actionId });
  if (!action) throw new AppError("not_found", "That action was not found.", 404);
  if (!["pending", "approved"].includes(action.status)) {
    throw new AppError("not_editable", `This action is ${action.status}; only pending or approved actions can be edited.`, 409);
  }
  const found = await readVoterStanding(tx, { tenantId: input.tenantId, actionId: action.id, memberId: input.editor.userId });
  const standing = found?.refusal;
  if (standing === "not_eligible" || standing === undefined) throw new AppError("not_eligible", "Your roles in this organisation do not allow you to edit this action.", 403);
  if (standing === "self_approval" || standing === "key_creator") {
    throw new AppError("self_edit", "You requested this action (yourself or through an API key you created); ask your agent for a new proposal instead.", 403);
  }
  // Judged by the database clock, as the vote and the claim judge it: an edit would otherwise
  // open a fresh window on an action agents were already told had expired. The revision's write
  // judges it again when it writes (the assessment in between takes time).
  if (found?.expired) throw new AppError("expired", EXPIRED_MESSAGE, 409);
  if (input.payloadHash !== action.payloadHash) {
    throw new AppError("stale_hash", `The action changed since you opened it; revision ${action.currentRevision} is current.`, 409);
  }
  const tool = await findTenantTool(tx, input.tenantId, action.tool);
  if (!tool) throw new AppError("unknown_tool", `There is no tool named ${action.tool} here any more.`, 409);
  assertCanonicalizable(input.args);
  return createNextRevision(tx, {
    action, tool, args: input.args, origin: `edited by ${input.editor.label}`, createdByUserId: input.editor.userId,
    actor: memberAuditActor(input.editor), whileOpen: EXPIRED_MESSAGE,
    invalidArgs: { message: "The edited arguments are not valid", status: 400 },
  });
}
