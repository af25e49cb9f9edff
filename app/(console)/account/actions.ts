"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { changePassword, NEW_PASSWORD_MAX_LENGTH } from "@/lib/auth/change-password";
import { getDb } from "@/lib/db/client";
import { memberAction, type ActionResult } from "@/lib/server/boundary";

const ChangePasswordSchema = z
  .strictObject({
    currentPassword: z.string().min(1, "Enter your current password.").max(1024),
    newPassword: z.string().max(NEW_PASSWORD_MAX_LENGTH, `Choose a new password of at most ${NEW_PASSWORD_MAX_LENGTH} characters.`),
    repeatPassword: z.string().max(NEW_PASSWORD_MAX_LENGTH),
  })
  .refine((input) => input.newPassword === input.repeatPassword, {
    message: "The two new passwords differ. Type the same new password twice.",
    path: ["repeatPassword"],
  });

const change = memberAction({ name: "account.change_password", input: ChangePasswordSchema }, async (input, member) => {
  const result = await changePassword(getDb(), {
    userId: member.user.id,
    sessionId: member.session.id,
    currentPassword: input.currentPassword,
    newPassword: input.newPassword,
    actor: { type: "user", id: member.user.id, label: member.user.email },
  });
  revalidatePath("/account");
  return result;
});

export async function changePasswordAction(raw: unknown): Promise<ActionResult<{ sessionsEnded: number }>> {
  return change(raw);
}
