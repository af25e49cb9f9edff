import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { auditBodyOf, type AuditActor } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { setMemberEmailMode } from "@/lib/db/statements/tenant/set-member-email-mode";
import { AppError } from "@/lib/errors";

export const EMAIL_MODES = ["immediate", "digest"] as const;
export type EmailMode = (typeof EMAIL_MODES)[number];
export const EmailModeSchema = z.enum(EMAIL_MODES, { error: "Choose immediate or digest." });

/**
 * A member chooses how they are emailed about actions awaiting their review in one tenant: one
 * email per action as it comes (immediate), or one digest per period. Only their own membership;
 * a change is audited in that tenant. Returns the mode now in force.
 */
export async function setEmailMode(
  db: Db,
  input: { tenantId: string; userId: string; mode: EmailMode; actor: AuditActor },
): Promise<{ mode: EmailMode; changed: boolean }> {
  const membership = await db.membership.findFirst({ where: { tenantId: input.tenantId, userId: input.userId }, select: { emailMode: true } });
  if (!membership) throw new AppError("forbidden", "You are not a member of this organisation.", 403);
  if (membership.emailMode === input.mode) return { mode: input.mode, changed: false };
  const changed = await setMemberEmailMode(db, {
    tenantId: input.tenantId, userId: input.userId, before: membership.emailMode, after: input.mode,
    event: auditBodyOf({
      tenantId: input.tenantId, actor: input.actor, type: "member.email_mode_changed", outcome: "ok", subject: { type: "member", id: input.userId },
      data: { before: membership.emailMode, after: input.mode },
    }),
  });
  if (!changed) throw new AppError("conflict", "Your email preference changed in another window meanwhile. Reload the page and choose again.", 409);
  void requestSeal(db, input.tenantId);
  return { mode: input.mode, changed: true };
}
