import type { Db } from "@/lib/db/client";
import { appendAuditEvent, type AuditActor } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { endUserSessions } from "@/lib/auth/end-sessions";
import { sqlTransaction } from "@/lib/db/sql";
import { replacePasswordHash } from "@/lib/db/statements/auth/replace-password-hash";
import { unlinkSlackUser } from "@/lib/db/statements/notifications/unlink-slack-user";
import { hashPassword, verifyPassword } from "@/lib/auth/password";
import { forgetAttemptsOf, reserveAttempt } from "@/lib/auth/sign-in-throttle";
import { AppError } from "@/lib/errors";

/** NIST SP 800-63B asks at least 15 characters of a password that is the only factor. */
export const NEW_PASSWORD_MIN_LENGTH = 15;
export const NEW_PASSWORD_MAX_LENGTH = 256;
/** Wrong current passwords allowed per user before the form waits: a stolen session cannot guess on. */
export const CURRENT_PASSWORD_CHECKS = { limit: 5, windowSeconds: 15 * 60 };

export type ChangePasswordInput = {
  userId: string;
  /** The session asking: it stays signed in, every other one ends. */
  sessionId: string;
  currentPassword: string;
  newPassword: string;
  actor: AuditActor;
};

/**
 * Changes a signed-in user's password after checking the current one and ends their other sessions
 * in the same transaction, audited in each of their organisations. Wrong current passwords are
 * audited and counted: past CURRENT_PASSWORD_CHECKS.limit the form refuses until the window passes.
 */
export async function changePassword(db: Db, input: ChangePasswordInput): Promise<{ sessionsEnded: number }> {
  if (input.newPassword.length < NEW_PASSWORD_MIN_LENGTH) {
    throw new AppError("weak_password", `Choose a new password of at least ${NEW_PASSWORD_MIN_LENGTH} characters.`, 400);
  }
  if (input.newPassword.length > NEW_PASSWORD_MAX_LENGTH) {
    throw new AppError("weak_password", `Choose a new password of at most ${NEW_PASSWORD_MAX_LENGTH} characters.`, 400);
  }
  if (input.newPassword === input.currentPassword) {
    throw new AppError("same_password", "Choose a new password that differs from the current one.", 400);
  }
  const user = await db.user.findFirst({
    where: { id: input.userId, disabledAt: null },
    select: { passwordHash: true, memberships: { select: { tenantId: true }, orderBy: { tenantId: "asc" } } },
  });
  if (!user) throw new AppError("unauthenticated", "Sign in to continue.", 401);
  if (!user.passwordHash) {
    throw new AppError("no_password", "Your account signs in with single sign-on: change your password with your provider.", 400);
  }
  const checkedHash = user.passwordHash;
  const tenantIds = user.memberships.map((m) => m.tenantId);
  const attemptsKey = `password-check:${input.userId}`;
  if (!(await reserveAttempt(db, attemptsKey, CURRENT_PASSWORD_CHECKS))) {
    throw new AppError("throttled", `Too many wrong current passwords. Wait ${CURRENT_PASSWORD_CHECKS.windowSeconds / 60} minutes and try again.`, 429);
  }
  if (!(await verifyPassword(input.currentPassword, user.passwordHash))) {
    for (const tenantId of tenantIds) {
      await appendAuditEvent(db, {
        tenantId, actor: input.actor, type: "account.password_change_refused", outcome: "refused", subject: { type: "user", id: input.userId },
        data: { reason: "wrong_current_password" },
      });
    }
    throw new AppError("wrong_password", "Your current password is not correct. Check it and try again.", 400);
  }
  await forgetAttemptsOf(db, attemptsKey);

  const newHash = await hashPassword(input.newPassword);
  const sessionsEnded = await sqlTransaction(db, async (tx) => {
    if (!(await replacePasswordHash(tx, { userId: input.userId, checkedHash, newHash }))) {
      throw new AppError("password_changed_meanwhile", "Your password was changed at the same moment elsewhere. Reload the page and try again.", 409);
    }
    const ended = await endUserSessions(tx, input.userId, "password_changed", { exceptSessionId: input.sessionId });
    // A Slack link is a credential too: whoever knew the old password may have linked their own Slack user.
    const unlinked = new Set(await unlinkSlackUser(tx, { userId: input.userId }));
    for (const tenantId of tenantIds) {
      await appendAuditEvent(tx, {
        tenantId, actor: input.actor, type: "account.password_changed", outcome: "ok", subject: { type: "user", id: input.userId },
        data: { otherSessionsEnded: ended, slackUnlinked: unlinked.has(tenantId) },
      });
    }
    return ended;
  });
  for (const tenantId of tenantIds) void requestSeal(db, tenantId);
  return { sessionsEnded };
}
