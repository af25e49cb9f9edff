-- Standing grants (issue 41): "this and calls like it", approved with the action that shows it,
-- taken by the proposal's own statement (docs/DESIGN.md, "Standing grants").

-- CreateEnum
CREATE TYPE "GrantStatus" AS ENUM ('active', 'revoked');

-- AlterTable
ALTER TABLE "Tenant" ADD COLUMN     "grantsVersion" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "Decision" ADD COLUMN     "grantTerms" JSONB,
ADD COLUMN     "grantTermsHash" TEXT;

-- CreateTable
CREATE TABLE "Grant" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "sourceActionId" UUID NOT NULL,
    "sourceRevision" INTEGER NOT NULL,
    "apiKeyId" UUID,
    "taskId" UUID,
    "tool" TEXT NOT NULL,
    "policyVersion" INTEGER NOT NULL,
    "ruleId" TEXT,
    "maxRiskRank" INTEGER NOT NULL,
    "signed" BOOLEAN NOT NULL,
    "constraint" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "terms" JSONB NOT NULL,
    "termsHash" TEXT NOT NULL,
    "maxCalls" INTEGER,
    "totalArgument" TEXT,
    "maxTotal" BIGINT,
    "usedCalls" INTEGER NOT NULL DEFAULT 0,
    "usedTotal" BIGINT NOT NULL DEFAULT 0,
    "status" "GrantStatus" NOT NULL DEFAULT 'active',
    "approvedBy" TEXT[],
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "lastUsedAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),
    "revokedById" UUID,
    "revokedReason" TEXT,

    CONSTRAINT "Grant_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Grant_tenantId_status_expiresAt_idx" ON "Grant"("tenantId", "status", "expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "Grant_sourceActionId_sourceRevision_key" ON "Grant"("sourceActionId", "sourceRevision");

-- AddForeignKey
ALTER TABLE "Grant" ADD CONSTRAINT "Grant_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;
