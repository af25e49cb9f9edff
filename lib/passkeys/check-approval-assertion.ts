import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import { verifyAuthenticationResponse } from "@simplewebauthn/server";
import { decodeClientDataJSON } from "@simplewebauthn/server/helpers";
import type { AuditEventData } from "@/lib/audit/audit-event-types";
import type { SqlClient } from "@/lib/db/sql";
import { readApprovalSigner } from "@/lib/db/statements/actions/read-approval-signer";
import type { SignedVote } from "@/lib/db/statements/actions/cast-vote";
import type { ApprovalReceipt } from "@/lib/passkeys/approval-receipt";
import type { RelyingParty } from "@/lib/passkeys/relying-party";

export type ApprovalAssertion = { sessionId: string; response: AuthenticationResponseJSON; relyingParty: RelyingParty };

export type CheckedAssertion =
  | { ok: true; signed: SignedVote; audit: NonNullable<AuditEventData<"decision.recorded">["signature"]> }
  | { ok: false; message: string };

/**
 * The cryptographic half of a signed vote, in its transaction: finds the challenge and the passkey
 * (both locked) and checks that the passkey signed that challenge for a `webauthn.get` on one of the
 * console's origins and its RP id. Everything else the vote statement decides (cast-vote.ts).
 */
export async function checkApprovalAssertion(tx: SqlClient, input: { tenantId: string; assertion: ApprovalAssertion }): Promise<CheckedAssertion> {
  const { response, relyingParty } = input.assertion;
  let challenge: string;
  try {
    challenge = decodeClientDataJSON(response.response.clientDataJSON).challenge;
  } catch {
    return { ok: false, message: "The passkey's answer could not be read. Approve again." };
  }
  const signer = await readApprovalSigner(tx, { tenantId: input.tenantId, challenge, credentialId: response.id });
  if (!signer) return { ok: false, message: "This passkey signature does not answer a challenge from this console, or the passkey is not registered here. Approve again." };
  let verified;
  try {
    verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: (c) => c === challenge,
      expectedOrigin: relyingParty.origins,
      expectedRPID: relyingParty.rpID,
      expectedType: "webauthn.get",
      // The counter and user verification are judged by the vote statement, with its own refusal codes.
      credential: { id: signer.credentialId, publicKey: new Uint8Array(Buffer.from(signer.publicKey, "base64url")), counter: 0 },
      requireUserVerification: false,
    });
  } catch (error) {
    return { ok: false, message: `The passkey signature does not verify (${error instanceof Error ? error.message : "unreadable"}). Approve again.` };
  }
  if (!verified.verified) return { ok: false, message: "The passkey signature does not verify. Approve again." };
  const info = verified.authenticationInfo;
  const backupEligible = info.credentialDeviceType === "multiDevice";
  const signed: SignedVote = {
    challengeId: signer.challengeId, passkeyId: signer.passkeyId, sessionId: input.assertion.sessionId, counter: info.newCounter,
    userVerified: info.userVerified, backupEligible, backupState: info.credentialBackedUp,
    authenticatorData: response.response.authenticatorData, clientDataJSON: response.response.clientDataJSON, signature: response.response.signature,
  };
  return {
    ok: true,
    signed,
    audit: {
      receipt: JSON.parse(signer.receipt) as ApprovalReceipt, receiptHash: signer.receiptHash, passkeyId: signer.passkeyId,
      passkeyName: signer.passkeyName, credentialId: signer.credentialId, publicKey: signer.publicKeySpki, algorithm: signer.algorithm,
      authenticatorData: signed.authenticatorData, clientDataJSON: signed.clientDataJSON, signature: signed.signature, counter: signed.counter,
      userVerified: signed.userVerified, backupEligible, backupState: signed.backupState,
    },
  };
}
