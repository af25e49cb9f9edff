import { generateRegistrationOptions, type PublicKeyCredentialCreationOptionsJSON } from "@simplewebauthn/server";
import { randomBytes } from "node:crypto";
import type { Db } from "@/lib/db/client";
import { insertWebAuthnChallenge } from "@/lib/db/statements/auth/insert-webauthn-challenge";
import { SUPPORTED_ALGORITHMS } from "@/lib/passkeys/offline-public-key";
import type { RelyingParty } from "@/lib/passkeys/relying-party";
import { signInAgainToAddPasskey } from "@/lib/passkeys/finish-passkey-registration";
import { Prisma } from "@/lib/generated/prisma/client";
import { query } from "@/lib/db/sql";
import { sessionSignedInRecentlySql } from "@/lib/db/statements/auth/session-rules";

/** How long a member has to finish adding a passkey. */
export const REGISTRATION_CHALLENGE_TTL_SECONDS = 300;

/**
 * Options for adding a passkey: a fresh single-use challenge bound to this member and session (five
 * minutes), their live passkeys excluded, user verification required, algorithms Node can verify.
 * A session signed in too long ago is told here to sign in again; consumeRegistrationChallenge holds it.
 */
export async function startPasskeyRegistration(
  db: Db,
  input: { tenantId: string; user: { id: string; email: string; name: string }; sessionId: string; relyingParty: RelyingParty },
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const [session] = await query<{ recent: boolean }>(db, Prisma.sql`
    SELECT ${sessionSignedInRecentlySql(Prisma.sql`s`)} AS recent FROM "Session" s WHERE s.id = ${input.sessionId}::uuid AND s."userId" = ${input.user.id}::uuid`);
  if (!session?.recent) throw signInAgainToAddPasskey();
  const existing = await db.passkey.findMany({ where: { userId: input.user.id, removedAt: null }, select: { credentialId: true, transports: true } });
  const challenge = randomBytes(32).toString("base64url");
  await insertWebAuthnChallenge(db, {
    tenantId: input.tenantId, userId: input.user.id, sessionId: input.sessionId, purpose: "registration", challenge,
    actionId: null, revisionId: null, receipt: null, receiptHash: null, ttlSeconds: REGISTRATION_CHALLENGE_TTL_SECONDS,
  });
  return generateRegistrationOptions({
    rpName: input.relyingParty.rpName,
    rpID: input.relyingParty.rpID,
    userName: input.user.email,
    userDisplayName: input.user.name,
    userID: new Uint8Array(Buffer.from(input.user.id.replaceAll("-", ""), "hex")),
    challenge: new Uint8Array(Buffer.from(challenge, "base64url")),
    attestationType: "none",
    excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
    authenticatorSelection: { residentKey: "preferred", userVerification: "required" },
    supportedAlgorithmIDs: [...SUPPORTED_ALGORITHMS],
    timeout: REGISTRATION_CHALLENGE_TTL_SECONDS * 1000,
  });
}
