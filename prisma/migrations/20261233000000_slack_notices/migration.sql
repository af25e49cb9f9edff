-- Slack notices (issue 18 item 4): an escalation whose rule names a channel is posted there once,
-- through an outbox row unique per sealed escalation leaf, leased and retried like Slack messages

-- CreateTable
CREATE TABLE "SlackNotice" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "actionId" UUID NOT NULL,
    "auditSeq" BIGINT NOT NULL,
    "revision" INTEGER NOT NULL,
    "channel" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "afterSeconds" INTEGER NOT NULL,
    "ts" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "giveUpAt" TIMESTAMPTZ(3) NOT NULL,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMPTZ(3),
    "lastError" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SlackNotice_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SlackNotice_status_nextAttemptAt_idx" ON "SlackNotice"("status", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "SlackNotice_tenantId_auditSeq_key" ON "SlackNotice"("tenantId", "auditSeq");

-- AddForeignKey
ALTER TABLE "SlackNotice" ADD CONSTRAINT "SlackNotice_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;
