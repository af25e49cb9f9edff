import type { Db } from "@/lib/db/client";
import { thenSeal } from "@/lib/audit/seal-audit-chain";
import type { Role } from "@/lib/generated/prisma/enums";
import { AppError, markAudited } from "@/lib/errors";
import { appendAuditEvent, type AuditActor } from "@/lib/audit/append-audit-event";
import { ALL_ROLES, DECIDING_ROLES } from "@/lib/roles/permissions";
import { endUserSessions } from "@/lib/auth/end-sessions";
import { isUuid } from "@/lib/db/uuid";
import { lockMembershipForRoles } from "@/lib/db/statements/tenant/lock-membership-for-roles";
import { updateMembershipRoles } from "@/lib/db/statements/tenant/update-membership-roles";
import { sqlTransaction } from "@/lib/db/sql";
import { reapproveRegainedApprovals, reopenLostApprovals } from "@/lib/approvals/reopen-lost-approvals";
import { noLongerAdmin } from "@/lib/auth/no-longer-admin";

export type SetMemberRolesInput = { tenantId: string; membershipId: string; roles: Role[]; actor: AuditActor };

/**
 * Replaces a member's roles in one tenant, audited with before and after; a member who loses a role
 * has their sessions ended and the approvals that stop counting reopened, in the same transaction.
 * The admin memberships are locked first, so the last admin's admin role cannot be removed.
 */
export async function setMemberRoles(db: Db, input: SetMemberRolesInput): Promise<{ roles: Role[]; changed: boolean }> {
  const roles = ALL_ROLES.filter((role) => input.roles.includes(role));
  if (!isUuid(input.membershipId)) throw new AppError("not_found", "That member was not found.", 404);
  // A plain pg transaction, not Prisma's interactive one: a change that waits for the locks of votes
  // and executions under way (memberships before actions) has no client-side time limit to hit.
  const result = await thenSeal(db, input.tenantId, sqlTransaction(db, async (tx) => {
    const actorUserId = input.actor.type === "user" ? (input.actor.id ?? null) : null;
    const locked = await lockMembershipForRoles(tx, { tenantId: input.tenantId, membershipId: input.membershipId, actorUserId });
    if (!locked) throw new AppError("not_found", "That member was not found.", 404);
    const { member, adminIds, actorIsAdmin } = locked;
    const before = ALL_ROLES.filter((role) => member.roles.includes(role));
    // The one who asks is an admin now, under the lock every role change takes: one demoted a
    // moment ago (their request already past the boundary's check) changes nothing.
    if (!actorIsAdmin) {
      return { refused: { id: member.id, email: member.email, before, reason: "not_admin" as const } };
    }
    const changed = before.join(",") !== roles.join(",");
    if (!changed) return { roles, changed };
    const losesAdmin = before.includes("admin") && !roles.includes("admin");
    if (losesAdmin && adminIds.filter((id) => id !== member.id).length === 0) {
      return { refused: { id: member.id, email: member.email, before, reason: "last_admin" as const } };
    }
    await updateMembershipRoles(tx, { tenantId: input.tenantId, membershipId: member.id, roles });
    // A member who loses a role is signed out of every session, in this same transaction.
    const losesRole = before.some((role) => !roles.includes(role));
    const sessionsEnded = losesRole ? await endUserSessions(tx, member.userId, "roles_removed") : 0;
    await appendAuditEvent(tx, {
      tenantId: input.tenantId, actor: input.actor, type: "member.roles_changed", outcome: "ok", subject: { type: "membership", id: member.id },
      data: { member: member.email, before, after: roles, sessionsEnded },
    });
    // Approvals of theirs that no longer count go back to the queue with it, not left approved
    // where no claim would run them and no reviewer would see them.
    if (losesRole) {
      await reopenLostApprovals(tx, { cause: "roles_removed", tenantId: input.tenantId, userId: member.userId, member: member.email }, input.actor);
    }
    // And approvals that count again (a deciding role given back) approve what they had approved.
    if (roles.some((role) => !before.includes(role) && DECIDING_ROLES.includes(role))) {
      await reapproveRegainedApprovals(tx, { tenantId: input.tenantId, userId: member.userId, member: member.email }, input.actor);
    }
    return { roles, changed };
  }));
  if ("refused" in result && result.refused) {
    // Refusals are audited too, in their own transaction (the attempted change was rolled back).
    const { id, email, before, reason } = result.refused;
    await appendAuditEvent(db, {
      tenantId: input.tenantId, actor: input.actor, type: "member.roles_refused", outcome: "refused", subject: { type: "membership", id },
      data: { member: email, before, requested: roles, reason },
    });
    throw markAudited(reason === "not_admin"
      ? noLongerAdmin("change roles")
      : new AppError("last_admin", `${email} is the only admin; make someone else an admin first.`, 409));
  }
  return result;
}
