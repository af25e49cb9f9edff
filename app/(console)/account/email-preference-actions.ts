"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/lib/db/client";
import { EmailModeSchema, setEmailMode, type EmailMode } from "@/lib/notifications/set-email-mode";
import { memberAction, type ActionResult } from "@/lib/server/boundary";

const set = memberAction({ name: "account.set_email_mode", input: z.strictObject({ mode: EmailModeSchema }) }, async (input, member) => {
  const result = await setEmailMode(getDb(), {
    tenantId: member.tenant.id, userId: member.user.id, mode: input.mode,
    actor: { type: "user", id: member.user.id, label: member.user.email },
  });
  revalidatePath("/account");
  return result;
});

/** The signed-in member's reviewer-email preference in the organisation they are acting in. */
export async function setEmailModeAction(raw: unknown): Promise<ActionResult<{ mode: EmailMode; changed: boolean }>> {
  return set(raw);
}
