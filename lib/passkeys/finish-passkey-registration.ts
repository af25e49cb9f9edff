import { randomUUID } from "node:crypto";
import { verifyRegistrationResponse, type RegistrationResponseJSON } from "@simplewebauthn/server";
import { decodeClientDataJSON } from "@simplewebauthn/server/helpers";
import { auditBodyOf } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import type { Db } from "@/lib/db/client";
import { sqlTransaction } from "@/lib/db/sql";
import { consumeRegistrationChallenge } from "@/lib/db/statements/auth/consume-registration-challenge";
import { insertPasskey } from "@/lib/db/statements/auth/insert-passkey";
import { AppError } from "@/lib/errors";
import { sessionEndedError } from "@/lib/auth/session-ended";
import { RECENT_SIGN_IN_SECONDS } from "@/lib/db/statements/auth/session-rules";
import { offlinePublicKey } from "@/lib/passkeys/offline-public-key";
import type { RelyingParty } from "@/lib/passkeys/relying-party";

export type PasskeyOwner = { id: string; email: string; sessionId: string; tenantIds: string[] };

/** A passkey is added only by a session signed in within the last few minutes (consumeRegistrationChallenge). */
export function signInAgainToAddPasskey(): AppError {
  return new AppError(
    "sign_in_again",
    `To add a passkey, sign out and sign in again: it can be added only within ${RECENT_SIGN_IN_SECONDS / 60} minutes of signing in, so a session someone else took over cannot add one.`,
    403,
  );
}

/**
 * Adds the passkey the browser created: its challenge issued to this member and session, unused,
 * unexpired; the session live and signed in within ten minutes; the attestation verified for the
 * console's origins with user verification; an algorithm offline verifiers can check. Stored with
 * its key as SPKI and audited in each of the member's organisations, in one transaction.
 */
export async function finishPasskeyRegistration(
  db: Db,
  input: { owner: PasskeyOwner; name: string; response: RegistrationResponseJSON; relyingParty: RelyingParty },
): Promise<{ id: string; name: string }> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 60) throw new AppError("invalid_input", "Give the passkey a name of 1 to 60 characters, like “Work laptop”.", 400);
  let challenge: string;
  try {
    challenge = decodeClientDataJSON(input.response.response.clientDataJSON).challenge;
  } catch {
    throw new AppError("passkey_invalid", "The browser's answer could not be read. Try adding the passkey again.", 400);
  }
  const id = randomUUID();
  const stored = await sqlTransaction(db, async (tx) => {
    const use = await consumeRegistrationChallenge(tx, { userId: input.owner.id, sessionId: input.owner.sessionId, challenge });
    if (use === "session_ended") throw sessionEndedError();
    if (use === "sign_in_again") throw signInAgainToAddPasskey();
    if (use === "no_challenge") {
      throw new AppError("passkey_challenge", "This passkey request expired or was already used. Try adding the passkey again.", 400);
    }
    let verified;
    try {
      verified = await verifyRegistrationResponse({
        response: input.response,
        expectedChallenge: challenge,
        expectedOrigin: input.relyingParty.origins,
        expectedRPID: input.relyingParty.rpID,
        requireUserVerification: true,
      });
    } catch (error) {
      throw new AppError("passkey_invalid", `The passkey could not be verified (${error instanceof Error ? error.message : "unreadable"}). Try again.`, 400);
    }
    if (!verified.verified) throw new AppError("passkey_invalid", "The passkey could not be verified. Try again.", 400);
    const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;
    const offline = offlinePublicKey(credential.publicKey);
    const data = { passkeyId: id, name, credentialId: credential.id, member: input.owner.email };
    const events = input.owner.tenantIds.map((tenantId) => auditBodyOf({
      tenantId, actor: { type: "user", id: input.owner.id, label: input.owner.email }, type: "passkey.registered", outcome: "ok",
      subject: { type: "passkey", id }, data: { ...data, deviceType: credentialDeviceType, backedUp: credentialBackedUp },
    }));
    return insertPasskey(tx, {
      passkey: {
        id, userId: input.owner.id, credentialId: credential.id, name, publicKey: Buffer.from(credential.publicKey).toString("base64url"),
        publicKeySpki: offline.spki, algorithm: offline.algorithm, counter: credential.counter, transports: credential.transports ?? [],
        deviceType: credentialDeviceType, backedUp: credentialBackedUp,
      },
      events,
    });
  });
  if (!stored) throw new AppError("passkey_exists", "This passkey is already registered. Use it, or add a different one.", 409);
  for (const tenantId of input.owner.tenantIds) void requestSeal(db, tenantId);
  return { id, name };
}
