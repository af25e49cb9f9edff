-- One outbox for every notification channel (issue 37, item 2): webhooks, reviewer emails, Slack
-- messages and Slack notices move into OutboxDelivery, their cursors into OutboxCursor. Rows keep
-- their ids, attempts, windows and errors: pending stays pending, failed stays failed (and can be
-- sent again), and the words of the channels for done (delivered, done) become `sent` — or `skipped` for
-- a Slack notice that had nothing left to post.

-- CreateTable
CREATE TABLE "OutboxCursor" (
    "channel" TEXT NOT NULL,
    "subscriptionId" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "cursorSeq" BIGINT NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OutboxCursor_pkey" PRIMARY KEY ("channel","subscriptionId")
);

-- CreateTable
CREATE TABLE "OutboxDelivery" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "channel" TEXT NOT NULL,
    "subscriptionId" UUID NOT NULL,
    "dedupeKey" TEXT NOT NULL,
    "batchKey" TEXT,
    "actionId" UUID,
    "auditSeq" BIGINT NOT NULL,
    "payload" JSONB NOT NULL,
    "state" JSONB,
    "version" BIGINT NOT NULL DEFAULT 1,
    "sentVersion" BIGINT NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "giveUpAt" TIMESTAMPTZ(3) NOT NULL,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMPTZ(3),
    "sendingSince" TIMESTAMPTZ(3),
    "lastError" TEXT,
    "sentAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OutboxDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "OutboxCursor_tenantId_idx" ON "OutboxCursor"("tenantId");

-- CreateIndex
CREATE INDEX "OutboxDelivery_status_nextAttemptAt_idx" ON "OutboxDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "OutboxDelivery_batchKey_idx" ON "OutboxDelivery"("batchKey");

-- CreateIndex
CREATE INDEX "OutboxDelivery_subscriptionId_idx" ON "OutboxDelivery"("subscriptionId");

-- CreateIndex
CREATE INDEX "OutboxDelivery_tenantId_channel_createdAt_idx" ON "OutboxDelivery"("tenantId", "channel", "createdAt" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "OutboxDelivery_channel_dedupeKey_key" ON "OutboxDelivery"("channel", "dedupeKey");

-- AddForeignKey
ALTER TABLE "OutboxCursor" ADD CONSTRAINT "OutboxCursor_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OutboxDelivery" ADD CONSTRAINT "OutboxDelivery_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Move the cursors: one per webhook endpoint, per Slack app (its messages and its notices), per
-- reviewer emails of a tenant.
INSERT INTO "OutboxCursor" ("channel", "subscriptionId", "tenantId", "cursorSeq")
SELECT 'webhook', "id", "tenantId", "cursorSeq" FROM "WebhookEndpoint";
INSERT INTO "OutboxCursor" ("channel", "subscriptionId", "tenantId", "cursorSeq")
SELECT k.channel, i."tenantId", i."tenantId", i."cursorSeq" FROM "SlackIntegration" i CROSS JOIN (VALUES ('slack_message'), ('slack_notice')) AS k(channel);
INSERT INTO "OutboxCursor" ("channel", "subscriptionId", "tenantId", "cursorSeq", "updatedAt")
SELECT 'reviewer_email', "tenantId", "tenantId", "cursorSeq", "updatedAt" FROM "NotificationCursor";

-- Webhook deliveries: the body as it was queued, its webhook-id and event type, the last answer of the receiver.
INSERT INTO "OutboxDelivery" ("id", "tenantId", "channel", "subscriptionId", "dedupeKey", "actionId", "auditSeq", "payload", "state",
  "status", "attempts", "nextAttemptAt", "giveUpAt", "leaseOwner", "leaseExpiresAt", "lastError", "sentAt", "createdAt", "updatedAt")
SELECT d."id", d."tenantId", 'webhook', d."endpointId", d."endpointId"::text || ':' || d."auditSeq"::text,
  CASE WHEN d."payload"->'data'->>'actionId' ~ '^[0-9a-f-]{36}$' THEN (d."payload"->'data'->>'actionId')::uuid END, d."auditSeq",
  jsonb_build_object('messageId', d."messageId", 'eventType', d."eventType", 'body', d."payload"),
  CASE WHEN d."lastStatus" IS NOT NULL THEN jsonb_build_object('httpStatus', d."lastStatus") END,
  CASE d."status" WHEN 'delivered' THEN 'sent' ELSE d."status" END, d."attempts", d."nextAttemptAt", d."giveUpAt", d."leaseOwner", d."leaseExpiresAt",
  d."lastError", d."deliveredAt", d."createdAt", d."updatedAt"
FROM "WebhookDelivery" d;

-- Slack messages: one per action, kept up to date, what the posted message shows.
INSERT INTO "OutboxDelivery" ("id", "tenantId", "channel", "subscriptionId", "dedupeKey", "actionId", "auditSeq", "payload", "state",
  "version", "sentVersion", "status", "attempts", "nextAttemptAt", "giveUpAt", "leaseOwner", "leaseExpiresAt", "lastError", "createdAt", "updatedAt")
SELECT m."id", m."tenantId", 'slack_message', m."tenantId", m."actionId"::text, m."actionId", 0, jsonb_build_object('actionId', m."actionId"),
  jsonb_strip_nulls(jsonb_build_object('channel', m."channel", 'ts', m."ts", 'shownRevision', m."shownRevision", 'shownStatus', m."shownStatus")),
  m."wantedSeq", m."sentSeq", CASE m."status" WHEN 'done' THEN 'sent' ELSE m."status" END, m."attempts", m."nextAttemptAt", m."giveUpAt",
  m."leaseOwner", m."leaseExpiresAt", m."lastError", m."createdAt", m."updatedAt"
FROM "SlackMessage" m;

-- Slack notices: one per sealed leaf of an escalation.
INSERT INTO "OutboxDelivery" ("id", "tenantId", "channel", "subscriptionId", "dedupeKey", "actionId", "auditSeq", "payload", "state",
  "status", "attempts", "nextAttemptAt", "giveUpAt", "leaseOwner", "leaseExpiresAt", "lastError", "createdAt", "updatedAt")
SELECT n."id", n."tenantId", 'slack_notice', n."tenantId", n."tenantId"::text || ':' || n."auditSeq"::text, n."actionId", n."auditSeq",
  jsonb_build_object('actionId', n."actionId", 'revision', n."revision", 'channel', n."channel", 'role', n."role", 'afterSeconds', n."afterSeconds"),
  CASE WHEN n."ts" IS NOT NULL THEN jsonb_build_object('ts', n."ts") END,
  CASE WHEN n."status" = 'done' AND n."ts" IS NULL THEN 'skipped' WHEN n."status" = 'done' THEN 'sent' ELSE n."status" END,
  n."attempts", n."nextAttemptAt", n."giveUpAt", n."leaseOwner", n."leaseExpiresAt", n."lastError", n."createdAt", n."updatedAt"
FROM "SlackNotice" n;

-- Reviewer emails: one per ask, a digest member has rows that share a batch key and go out as one email.
INSERT INTO "OutboxDelivery" ("id", "tenantId", "channel", "subscriptionId", "dedupeKey", "batchKey", "actionId", "auditSeq", "payload",
  "status", "attempts", "nextAttemptAt", "giveUpAt", "leaseOwner", "leaseExpiresAt", "lastError", "sentAt", "createdAt", "updatedAt")
SELECT e."id", e."tenantId", 'reviewer_email', e."tenantId",
  concat_ws(':', e."actionId"::text, e."revision"::text, e."userId"::text, e."reason", e."auditSeq"::text),
  CASE WHEN e."mode" = 'digest' THEN 'digest:' || e."tenantId"::text || ':' || e."userId"::text END,
  e."actionId", e."auditSeq",
  jsonb_build_object('actionId', e."actionId", 'revision', e."revision", 'userId', e."userId", 'toAddress', e."toAddress", 'reason', e."reason", 'mode', e."mode"::text),
  e."status", e."attempts", e."nextAttemptAt", e."giveUpAt", e."leaseOwner", e."leaseExpiresAt", e."lastError", e."sentAt", e."createdAt", e."createdAt"
FROM "ReviewerEmail" e;

-- DropTable
DROP TABLE "WebhookDelivery";
DROP TABLE "SlackMessage";
DROP TABLE "SlackNotice";
DROP TABLE "ReviewerEmail";
DROP TABLE "NotificationCursor";

-- AlterTable
ALTER TABLE "WebhookEndpoint" DROP COLUMN "cursorSeq";
ALTER TABLE "SlackIntegration" DROP COLUMN "cursorSeq";
