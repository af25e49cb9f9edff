import { randomBytes } from "node:crypto";
import { generateAuthenticationOptions, type PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/server";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { snapshotHash } from "@/lib/approvals/snapshot-hash";
import { insertWebAuthnChallenge } from "@/lib/db/statements/auth/insert-webauthn-challenge";
import { readReceiptSubject } from "@/lib/db/statements/actions/read-receipt-subject";
import { challengeOfReceiptHash, receiptHashOf, receiptText, type ApprovalReceipt } from "@/lib/passkeys/approval-receipt";
import type { RelyingParty } from "@/lib/passkeys/relying-party";
import { checkGrantTerms } from "@/lib/grants/grant-terms";

/** How long a reviewer has to confirm with their passkey. */
export const APPROVAL_CHALLENGE_TTL_SECONDS = 120;

export type SignedApprovalStart = { options: PublicKeyCredentialRequestOptionsJSON; receipt: ApprovalReceipt; receiptHash: string };

/**
 * The first half of a signed approval: the receipt of what the reviewer approves, read from the
 * database, with a fresh nonce, stored as a single-use, short-lived challenge bound to this member
 * and session. Only their live passkeys are offered; user verification is required.
 */
export async function startSignedApproval(
  db: Db,
  input: { tenantId: string; userId: string; sessionId: string; actionId: string; payloadHash: string; relyingParty: RelyingParty; grant?: unknown },
): Promise<SignedApprovalStart> {
  const subject = await readReceiptSubject(db, { tenantId: input.tenantId, actionId: input.actionId });
  if (!subject) throw new AppError("not_found", "That action was not found.", 404);
  if (subject.status !== "pending") throw new AppError("not_pending", `This action is ${subject.status}; it can no longer be decided.`, 409);
  if (subject.payloadHash !== input.payloadHash) {
    throw new AppError("stale_hash", `The action changed since you opened it; revision ${subject.revision} is current. Reload and review it.`, 409);
  }
  const passkeys = await db.passkey.findMany({ where: { userId: input.userId, removedAt: null }, select: { credentialId: true, transports: true } });
  if (passkeys.length === 0) {
    throw new AppError("passkey_missing", "Approving this action needs a passkey, and you have none: add one on your account page, then approve again.", 403);
  }
  // The grant's terms are checked here only to hash them; the vote statement judges them again.
  const grant = input.grant === undefined || input.grant === null
    ? null
    : checkGrantTerms({ ...subject, actionId: subject.id }, input.grant);
  const receipt: ApprovalReceipt = {
    v: 1, tenant: input.tenantId, action: subject.id, revision: subject.revision, payloadHash: subject.payloadHash,
    policyVersion: subject.policyVersion, snapshotHash: subject.snapshotHash ?? snapshotHash(null), verdict: "approve",
    expiry: subject.expiresAt?.toISOString() ?? null, nonce: randomBytes(16).toString("base64url"), reviewer: input.userId,
    ...(grant ? { grant: grant.hash } : {}),
  };
  const text = receiptText(receipt);
  const hash = receiptHashOf(text);
  const challenge = challengeOfReceiptHash(hash);
  await insertWebAuthnChallenge(db, {
    tenantId: input.tenantId, userId: input.userId, sessionId: input.sessionId, purpose: "approval", challenge,
    actionId: subject.id, revisionId: subject.revisionId, receipt: text, receiptHash: hash, ttlSeconds: APPROVAL_CHALLENGE_TTL_SECONDS,
  });
  const options = await generateAuthenticationOptions({
    rpID: input.relyingParty.rpID,
    challenge: new Uint8Array(Buffer.from(hash, "hex")),
    allowCredentials: passkeys.map((p) => ({ id: p.credentialId, transports: p.transports })),
    userVerification: "required",
    timeout: APPROVAL_CHALLENGE_TTL_SECONDS * 1000,
  });
  return { options, receipt, receiptHash: hash };
}
