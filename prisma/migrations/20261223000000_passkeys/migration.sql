-- Passkeys for reviewers and passkey-signed decisions (issue 15 items 1 and 2).
-- A member's WebAuthn credentials, the challenges the server issued (single-use, short-lived,
-- bound to the member and session), and the signature an approval carries (immutable like the
-- decision it belongs to).
-- CreateTable
CREATE TABLE "Passkey" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "credentialId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "publicKey" TEXT NOT NULL,
    "publicKeySpki" TEXT NOT NULL,
    "algorithm" INTEGER NOT NULL,
    "counter" BIGINT NOT NULL DEFAULT 0,
    "transports" TEXT[],
    "deviceType" TEXT NOT NULL,
    "backedUp" BOOLEAN NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMPTZ(3),
    "removedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Passkey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebAuthnChallenge" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "sessionId" UUID NOT NULL,
    "purpose" TEXT NOT NULL,
    "challenge" TEXT NOT NULL,
    "actionId" UUID,
    "revisionId" UUID,
    "receipt" TEXT,
    "receiptHash" TEXT,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "usedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WebAuthnChallenge_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DecisionSignature" (
    "decisionId" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "passkeyId" UUID NOT NULL,
    "credentialId" TEXT NOT NULL,
    "passkeyName" TEXT NOT NULL,
    "publicKeySpki" TEXT NOT NULL,
    "algorithm" INTEGER NOT NULL,
    "receipt" TEXT NOT NULL,
    "receiptHash" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "authenticatorData" TEXT NOT NULL,
    "clientDataJSON" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    "counter" BIGINT NOT NULL,
    "userVerified" BOOLEAN NOT NULL,
    "backupEligible" BOOLEAN NOT NULL,
    "backupState" BOOLEAN NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DecisionSignature_pkey" PRIMARY KEY ("decisionId")
);

-- CreateIndex
CREATE UNIQUE INDEX "Passkey_credentialId_key" ON "Passkey"("credentialId");

-- CreateIndex
CREATE INDEX "Passkey_userId_idx" ON "Passkey"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "WebAuthnChallenge_challenge_key" ON "WebAuthnChallenge"("challenge");

-- CreateIndex
CREATE INDEX "WebAuthnChallenge_userId_createdAt_idx" ON "WebAuthnChallenge"("userId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "DecisionSignature_nonce_key" ON "DecisionSignature"("nonce");

-- CreateIndex
CREATE INDEX "DecisionSignature_tenantId_idx" ON "DecisionSignature"("tenantId");

-- AddForeignKey
ALTER TABLE "Passkey" ADD CONSTRAINT "Passkey_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DecisionSignature" ADD CONSTRAINT "DecisionSignature_decisionId_fkey" FOREIGN KEY ("decisionId") REFERENCES "Decision"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- A decision's signature never changes. (Statement separators inside function bodies are written \073.)
CREATE FUNCTION "decision_signature_immutable"() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN RAISE EXCEPTION ''DecisionSignature % is immutable'', OLD."decisionId" USING ERRCODE = ''insufficient_privilege''\073 END\073';
CREATE TRIGGER "decision_signature_immutable" BEFORE UPDATE ON "DecisionSignature"
  FOR EACH ROW EXECUTE FUNCTION "decision_signature_immutable"();
