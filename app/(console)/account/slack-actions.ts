"use server";

import { z } from "zod";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { memberAction, type ActionResult } from "@/lib/server/boundary";
import { startSlackLink } from "@/lib/slack/start-slack-link";

const start = memberAction({ name: "account.slack_link", input: z.strictObject({}) }, async (_input, member) => {
  const db = getDb();
  const configured = await db.slackIntegration.count({ where: { tenantId: member.tenant.id } });
  if (!configured) throw new AppError("slack_not_configured", "Slack is not connected to this organisation yet: ask an admin to set it up under Admin → Slack.", 409);
  const { code, expiresAt } = await startSlackLink(db, { tenantId: member.tenant.id, userId: member.user.id });
  return { code, expiresAt: expiresAt.toISOString() };
});
export async function startSlackLinkAction(raw: unknown): Promise<ActionResult<{ code: string; expiresAt: string }>> {
  return start(raw);
}
