import type { Db } from "@/lib/db/client";
import type { EmailMode } from "@/lib/notifications/set-email-mode";

/** The member's reviewer-email mode in one tenant (immediate when the membership is gone). */
export async function readEmailMode(db: Db, input: { tenantId: string; userId: string }): Promise<EmailMode> {
  const membership = await db.membership.findFirst({ where: { tenantId: input.tenantId, userId: input.userId }, select: { emailMode: true } });
  return membership?.emailMode ?? "immediate";
}
