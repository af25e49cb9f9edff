"use server";

import { revalidatePath } from "next/cache";
import { getDb } from "@/lib/db/client";
import { memberAction, type ActionResult } from "@/lib/server/boundary";
import { z } from "zod";
import { configureSlack, ConfigureSlackSchema } from "@/lib/slack/configure-slack";
import { resendSlackDelivery } from "@/lib/slack/slack-deliveries";

const configure = memberAction(
  { name: "admin.slack.configure", permission: "admin:manage", input: ConfigureSlackSchema },
  async (fields, member) => {
    await configureSlack(getDb(), { tenantId: member.tenant.id, actor: { type: "user", id: member.user.id, label: member.user.email }, fields });
    revalidatePath("/admin/slack");
    return { saved: true };
  },
);
export async function configureSlackAction(raw: unknown): Promise<ActionResult<{ saved: boolean }>> {
  return configure(raw);
}

const resend = memberAction(
  { name: "admin.slack.resend", permission: "admin:manage", input: z.strictObject({ id: z.uuid() }) },
  async ({ id }, member) => {
    await resendSlackDelivery(getDb(), { tenantId: member.tenant.id, id, actor: { type: "user", id: member.user.id, label: member.user.email } });
    revalidatePath("/admin/slack");
    return { id };
  },
);
export async function resendSlackAction(raw: unknown): Promise<ActionResult<{ id: string }>> {
  return resend(raw);
}
