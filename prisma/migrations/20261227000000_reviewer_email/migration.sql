-- Reviewer emails (immediate or digest per member and tenant) fed from each tenant's sealed audit
-- log, and escalations and expiry warnings recorded once per action revision

-- CreateEnum
CREATE TYPE "EmailMode" AS ENUM ('immediate', 'digest');

-- AlterTable
ALTER TABLE "Membership" ADD COLUMN     "emailMode" "EmailMode" NOT NULL DEFAULT 'immediate';

-- CreateTable
CREATE TABLE "NotificationCursor" (
    "tenantId" UUID NOT NULL,
    "cursorSeq" BIGINT NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "NotificationCursor_pkey" PRIMARY KEY ("tenantId")
);

-- CreateTable
CREATE TABLE "ReviewerEmail" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "actionId" UUID NOT NULL,
    "revision" INTEGER NOT NULL,
    "userId" UUID NOT NULL,
    "toAddress" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "mode" "EmailMode" NOT NULL,
    "auditSeq" BIGINT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "giveUpAt" TIMESTAMPTZ(3) NOT NULL,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMPTZ(3),
    "lastError" TEXT,
    "sentAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ReviewerEmail_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ActionReminder" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "actionId" UUID NOT NULL,
    "revision" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "firedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ActionReminder_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ReviewerEmail_status_nextAttemptAt_idx" ON "ReviewerEmail"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "ReviewerEmail_tenantId_createdAt_idx" ON "ReviewerEmail"("tenantId", "createdAt" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "ReviewerEmail_actionId_revision_userId_reason_key" ON "ReviewerEmail"("actionId", "revision", "userId", "reason");

-- CreateIndex
CREATE UNIQUE INDEX "ActionReminder_actionId_revision_kind_key" ON "ActionReminder"("actionId", "revision", "kind");

-- AddForeignKey
ALTER TABLE "ReviewerEmail" ADD CONSTRAINT "ReviewerEmail_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ActionReminder" ADD CONSTRAINT "ActionReminder_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;
