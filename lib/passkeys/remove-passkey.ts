import { auditBodyOf } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import type { Db } from "@/lib/db/client";
import { removePasskeyRow } from "@/lib/db/statements/auth/remove-passkey";
import { reopenLostApprovals } from "@/lib/approvals/reopen-lost-approvals";
import { isUuid } from "@/lib/db/uuid";
import { sqlTransaction } from "@/lib/db/sql";
import { AppError } from "@/lib/errors";
import type { PasskeyOwner } from "@/lib/passkeys/finish-passkey-registration";

/**
 * Removes one of the member's own passkeys: it never signs again, and the approvals it signed whose
 * actions have not run go back to review in the same transaction (decisions keep naming it).
 * Audited in each of the member's organisations. Another member's passkey is not found.
 */
export async function removePasskey(db: Db, input: { owner: Omit<PasskeyOwner, "sessionId">; passkeyId: string }): Promise<{ reopened: number }> {
  const notFound = new AppError("not_found", "That passkey was not found among yours.", 404);
  if (!isUuid(input.passkeyId)) throw notFound;
  const passkey = await db.passkey.findFirst({ where: { id: input.passkeyId, userId: input.owner.id, removedAt: null }, select: { name: true, credentialId: true } });
  if (!passkey) throw notFound;
  const actor = { type: "user" as const, id: input.owner.id, label: input.owner.email };
  const events = input.owner.tenantIds.map((tenantId) => auditBodyOf({
    tenantId, actor, type: "passkey.removed", outcome: "ok",
    subject: { type: "passkey", id: input.passkeyId },
    data: { passkeyId: input.passkeyId, name: passkey.name, credentialId: passkey.credentialId, member: input.owner.email },
  }));
  // A plain pg transaction, not Prisma's interactive one: the removal waits for a signed vote under
  // way with this passkey (it locks the passkey before the action), with no client-side time limit.
  const reopened = await sqlTransaction(db, async (tx) => {
    if (!(await removePasskeyRow(tx, { userId: input.owner.id, passkeyId: input.passkeyId, events }))) return null;
    // The approvals it signed that have not run stop counting (approval-rules.ts): back to review.
    return reopenLostApprovals(tx, { cause: "passkey_removed", passkeyId: input.passkeyId, tenantIds: input.owner.tenantIds, member: input.owner.email }, actor);
  });
  if (!reopened) throw notFound;
  for (const tenantId of input.owner.tenantIds) void requestSeal(db, tenantId);
  return { reopened: reopened.length };
}
