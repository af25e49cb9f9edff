"use server";

import { revalidatePath } from "next/cache";
import { getDb } from "@/lib/db/client";
import { memberAction, type ActionResult } from "@/lib/server/boundary";
import { configureSlack, ConfigureSlackSchema } from "@/lib/slack/configure-slack";

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
