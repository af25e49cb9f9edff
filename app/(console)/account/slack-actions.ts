"use server";

import { z } from "zod";
import { getDb } from "@/lib/db/client";
import { memberAction, type ActionResult } from "@/lib/server/boundary";
import { startSlackLink } from "@/lib/slack/start-slack-link";

const start = memberAction({ name: "account.slack_link", input: z.strictObject({}) }, async (_input, member) => {
  const { code, expiresAt } = await startSlackLink(getDb(), { tenantId: member.tenant.id, userId: member.user.id });
  return { code, expiresAt: expiresAt.toISOString() };
});
export async function startSlackLinkAction(raw: unknown): Promise<ActionResult<{ code: string; expiresAt: string }>> {
  return start(raw);
}
