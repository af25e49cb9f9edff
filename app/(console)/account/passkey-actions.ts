"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/lib/db/client";
import { finishPasskeyRegistration } from "@/lib/passkeys/finish-passkey-registration";
import { removePasskey } from "@/lib/passkeys/remove-passkey";
import { startPasskeyRegistration } from "@/lib/passkeys/start-passkey-registration";
import { RegistrationResponseSchema } from "@/lib/passkeys/webauthn-schemas";
import { memberAction } from "@/lib/server/boundary";
import { consoleRelyingParty } from "@/lib/server/relying-party";

export const beginPasskeyRegistration = memberAction({ name: "account.passkey_options", input: z.strictObject({}) }, async (_input, member) =>
  startPasskeyRegistration(getDb(), { tenantId: member.tenant.id, user: member.user, sessionId: member.session.id, relyingParty: await consoleRelyingParty() }),
);

export const completePasskeyRegistration = memberAction(
  { name: "account.passkey_register", input: z.strictObject({ name: z.string().max(200), response: RegistrationResponseSchema }) },
  async (input, member) => {
    const added = await finishPasskeyRegistration(getDb(), {
      owner: { id: member.user.id, email: member.user.email, sessionId: member.session.id, tenantIds: member.memberships.map((m) => m.tenantId) },
      name: input.name, response: input.response, relyingParty: await consoleRelyingParty(),
    });
    revalidatePath("/account");
    return added;
  },
);

export const removePasskeyAction = memberAction({ name: "account.passkey_remove", input: z.strictObject({ passkeyId: z.uuid() }) }, async (input, member) => {
  const { reopened } = await removePasskey(getDb(), {
    owner: { id: member.user.id, email: member.user.email, tenantIds: member.memberships.map((m) => m.tenantId) }, passkeyId: input.passkeyId,
  });
  revalidatePath("/account");
  return { removed: true, reopened };
});
