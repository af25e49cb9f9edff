-- Slack app (issue 18): a tenant's integration with its sealed bot token and signing secret,
-- members' verified Slack-user links, and the per-action message outbox fed from the sealed audit log

-- CreateTable
CREATE TABLE "SlackIntegration" (
    "tenantId" UUID NOT NULL,
    "secrets" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "openOnlyFrom" "RiskLevel" NOT NULL DEFAULT 'high',
    "cursorSeq" BIGINT NOT NULL,
    "updatedById" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SlackIntegration_pkey" PRIMARY KEY ("tenantId")
);

-- CreateTable
CREATE TABLE "SlackUserLink" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "slackTeamId" TEXT,
    "slackUserId" TEXT,
    "codeHash" TEXT,
    "codeExpiresAt" TIMESTAMPTZ(3),
    "linkedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SlackUserLink_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SlackMessage" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "actionId" UUID NOT NULL,
    "channel" TEXT,
    "ts" TEXT,
    "wantedSeq" BIGINT NOT NULL,
    "sentSeq" BIGINT NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "giveUpAt" TIMESTAMPTZ(3) NOT NULL,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMPTZ(3),
    "lastError" TEXT,
    "shownRevision" INTEGER,
    "shownStatus" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SlackMessage_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "SlackUserLink_codeHash_key" ON "SlackUserLink"("codeHash");

-- CreateIndex
CREATE UNIQUE INDEX "SlackUserLink_tenantId_userId_key" ON "SlackUserLink"("tenantId", "userId");

-- CreateIndex
CREATE UNIQUE INDEX "SlackUserLink_tenantId_slackTeamId_slackUserId_key" ON "SlackUserLink"("tenantId", "slackTeamId", "slackUserId");

-- CreateIndex
CREATE UNIQUE INDEX "SlackMessage_actionId_key" ON "SlackMessage"("actionId");

-- CreateIndex
CREATE INDEX "SlackMessage_status_nextAttemptAt_idx" ON "SlackMessage"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "SlackMessage_tenantId_idx" ON "SlackMessage"("tenantId");

-- AddForeignKey
ALTER TABLE "SlackIntegration" ADD CONSTRAINT "SlackIntegration_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SlackUserLink" ADD CONSTRAINT "SlackUserLink_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SlackMessage" ADD CONSTRAINT "SlackMessage_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;
