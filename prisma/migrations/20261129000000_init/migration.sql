-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "Role" AS ENUM ('requester', 'reviewer', 'auditor', 'admin');

-- CreateEnum
CREATE TYPE "RiskLevel" AS ENUM ('low', 'medium', 'high', 'critical');

-- CreateEnum
CREATE TYPE "ActionKind" AS ENUM ('tool', 'code');

-- CreateEnum
CREATE TYPE "ActionStatus" AS ENUM ('pending', 'approved', 'rejected', 'expired', 'cancelled', 'invalidated', 'denied', 'executing', 'succeeded', 'failed', 'unknown');

-- CreateEnum
CREATE TYPE "RevisionStatus" AS ENUM ('current', 'superseded');

-- CreateEnum
CREATE TYPE "Verdict" AS ENUM ('approve', 'reject');

-- CreateEnum
CREATE TYPE "ExecutionStatus" AS ENUM ('executing', 'succeeded', 'failed', 'unknown');

-- CreateEnum
CREATE TYPE "TaskStatus" AS ENUM ('queued', 'running', 'waiting_approval', 'completed', 'failed', 'cancelled');

-- CreateEnum
CREATE TYPE "InvoiceStatus" AS ENUM ('open', 'paid', 'cancelled', 'refunded');

-- CreateEnum
CREATE TYPE "OutboxStatus" AS ENUM ('queued', 'sent', 'failed');

-- CreateTable
CREATE TABLE "Tenant" (
    "id" UUID NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "domains" TEXT[],
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Tenant_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "User" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "passwordHash" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "disabledAt" TIMESTAMPTZ(3),

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Membership" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "roles" "Role"[],
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Membership_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SignInAttempt" (
    "id" BIGSERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "ip" TEXT,
    "succeeded" BOOLEAN NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SignInAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ToolPolicy" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "document" JSONB NOT NULL,
    "comment" TEXT,
    "createdById" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ToolPolicy_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Task" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "requesterUserId" UUID,
    "requesterApiKeyId" UUID,
    "instruction" TEXT NOT NULL,
    "status" "TaskStatus" NOT NULL DEFAULT 'queued',
    "planner" TEXT NOT NULL,
    "runState" JSONB NOT NULL,
    "cycleCount" INTEGER NOT NULL DEFAULT 0,
    "stepCount" INTEGER NOT NULL DEFAULT 0,
    "finalAnswer" TEXT,
    "error" TEXT,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMPTZ(3),
    "runnableAt" TIMESTAMPTZ(3),
    "wakeSeq" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Task_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Action" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "taskId" UUID,
    "requesterUserId" UUID,
    "requesterApiKeyId" UUID,
    "requesterLabel" TEXT NOT NULL,
    "kind" "ActionKind" NOT NULL,
    "tool" TEXT NOT NULL,
    "reason" TEXT NOT NULL DEFAULT '',
    "stepKey" TEXT,
    "agentCallId" TEXT,
    "status" "ActionStatus" NOT NULL,
    "requiresApproval" BOOLEAN NOT NULL,
    "currentRevision" INTEGER NOT NULL DEFAULT 1,
    "payloadHash" TEXT NOT NULL,
    "riskLevel" "RiskLevel" NOT NULL,
    "riskRank" INTEGER NOT NULL,
    "quorum" INTEGER NOT NULL DEFAULT 1,
    "eligibleRoles" "Role"[],
    "expiresAt" TIMESTAMPTZ(3),
    "decidedAt" TIMESTAMPTZ(3),
    "consumedAt" TIMESTAMPTZ(3),
    "statusReason" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Action_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ActionRevision" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "actionId" UUID NOT NULL,
    "revision" INTEGER NOT NULL,
    "status" "RevisionStatus" NOT NULL DEFAULT 'current',
    "args" JSONB,
    "code" TEXT,
    "language" TEXT,
    "sandboxSpec" JSONB,
    "policyVersion" INTEGER NOT NULL,
    "policyDecision" JSONB NOT NULL,
    "payloadHash" TEXT NOT NULL,
    "hashAlgorithm" TEXT NOT NULL,
    "hashVersion" INTEGER NOT NULL,
    "riskTags" JSONB NOT NULL,
    "riskLevel" "RiskLevel" NOT NULL,
    "preview" JSONB,
    "scanFindings" JSONB,
    "diff" JSONB,
    "origin" TEXT NOT NULL,
    "createdByUserId" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ActionRevision_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Decision" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "actionId" UUID NOT NULL,
    "revisionId" UUID NOT NULL,
    "reviewerId" UUID NOT NULL,
    "verdict" "Verdict" NOT NULL,
    "note" TEXT,
    "payloadHash" TEXT NOT NULL,
    "void" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Decision_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Snapshot" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "actionId" UUID NOT NULL,
    "revisionId" UUID NOT NULL,
    "phase" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "hash" TEXT NOT NULL,
    "takenAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Snapshot_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Execution" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "actionId" UUID NOT NULL,
    "revision" INTEGER NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "status" "ExecutionStatus" NOT NULL DEFAULT 'executing',
    "isolation" TEXT,
    "result" JSONB,
    "stdout" TEXT,
    "stderr" TEXT,
    "exitCode" INTEGER,
    "truncated" BOOLEAN NOT NULL DEFAULT false,
    "durationMs" INTEGER,
    "error" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 1,
    "claimedBy" TEXT,
    "leaseExpiresAt" TIMESTAMPTZ(3),
    "startedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Execution_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" BIGSERIAL NOT NULL,
    "tenantId" UUID NOT NULL,
    "seq" BIGINT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actorType" TEXT NOT NULL,
    "actorId" TEXT,
    "actorLabel" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "subjectType" TEXT NOT NULL,
    "subjectId" TEXT,
    "actionId" UUID,
    "tool" TEXT,
    "verdict" "Verdict",
    "riskLevel" "RiskLevel",
    "reviewerId" UUID,
    "requester" TEXT,
    "status" TEXT,
    "data" JSONB NOT NULL,
    "prevHash" TEXT NOT NULL,
    "hash" TEXT NOT NULL,

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuditHead" (
    "tenantId" UUID NOT NULL,
    "seq" BIGINT NOT NULL,
    "hash" TEXT NOT NULL,
    "prevHash" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "AuditHead_pkey" PRIMARY KEY ("tenantId")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "allowedTools" TEXT[],
    "createdById" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RateLimitBucket" (
    "key" TEXT NOT NULL,
    "windowStart" TIMESTAMPTZ(3) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "RateLimitBucket_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "Customer" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "externalRef" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "verifiedDomains" TEXT[],
    "optOut" BOOLEAN NOT NULL DEFAULT false,
    "notes" TEXT NOT NULL DEFAULT '',
    "version" INTEGER NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Customer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Invoice" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "number" TEXT NOT NULL,
    "customerId" UUID NOT NULL,
    "status" "InvoiceStatus" NOT NULL DEFAULT 'open',
    "currency" TEXT NOT NULL DEFAULT 'USD',
    "amountDueMinor" INTEGER NOT NULL,
    "amountPaidMinor" INTEGER NOT NULL DEFAULT 0,
    "amountRefundedMinor" INTEGER NOT NULL DEFAULT 0,
    "dueDate" DATE NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "cancelKey" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Invoice_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Refund" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "invoiceId" UUID NOT NULL,
    "amountMinor" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "actionId" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Refund_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EmailOutbox" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "toAddress" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "customerId" UUID,
    "idempotencyKey" TEXT NOT NULL,
    "status" "OutboxStatus" NOT NULL DEFAULT 'queued',
    "error" TEXT,
    "actionId" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sentAt" TIMESTAMPTZ(3),

    CONSTRAINT "EmailOutbox_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Dataset" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "content" JSONB NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Dataset_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Tenant_slug_key" ON "Tenant"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE INDEX "Membership_userId_idx" ON "Membership"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "Membership_tenantId_userId_key" ON "Membership"("tenantId", "userId");

-- CreateIndex
CREATE INDEX "SignInAttempt_email_createdAt_idx" ON "SignInAttempt"("email", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "ToolPolicy_tenantId_version_key" ON "ToolPolicy"("tenantId", "version");

-- CreateIndex
CREATE INDEX "Task_tenantId_requesterUserId_createdAt_idx" ON "Task"("tenantId", "requesterUserId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Task_runnableAt_leaseExpiresAt_idx" ON "Task"("runnableAt", "leaseExpiresAt");

-- CreateIndex
CREATE INDEX "Action_tenantId_status_riskRank_expiresAt_idx" ON "Action"("tenantId", "status", "riskRank" DESC, "expiresAt");

-- CreateIndex
CREATE INDEX "Action_tenantId_taskId_idx" ON "Action"("tenantId", "taskId");

-- CreateIndex
CREATE INDEX "Action_status_expiresAt_idx" ON "Action"("status", "expiresAt");

-- CreateIndex
CREATE INDEX "Action_tenantId_createdAt_idx" ON "Action"("tenantId", "createdAt" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "Action_taskId_agentCallId_key" ON "Action"("taskId", "agentCallId");

-- CreateIndex
CREATE INDEX "ActionRevision_tenantId_payloadHash_idx" ON "ActionRevision"("tenantId", "payloadHash");

-- CreateIndex
CREATE UNIQUE INDEX "ActionRevision_actionId_revision_key" ON "ActionRevision"("actionId", "revision");

-- CreateIndex
CREATE INDEX "Decision_tenantId_reviewerId_createdAt_idx" ON "Decision"("tenantId", "reviewerId", "createdAt");

-- CreateIndex
CREATE INDEX "Decision_actionId_idx" ON "Decision"("actionId");

-- CreateIndex
CREATE UNIQUE INDEX "Decision_revisionId_reviewerId_key" ON "Decision"("revisionId", "reviewerId");

-- CreateIndex
CREATE INDEX "Snapshot_actionId_revisionId_phase_idx" ON "Snapshot"("actionId", "revisionId", "phase");

-- CreateIndex
CREATE UNIQUE INDEX "Execution_idempotencyKey_key" ON "Execution"("idempotencyKey");

-- CreateIndex
CREATE INDEX "Execution_status_leaseExpiresAt_idx" ON "Execution"("status", "leaseExpiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "Execution_actionId_revision_key" ON "Execution"("actionId", "revision");

-- CreateIndex
CREATE INDEX "AuditEvent_tenantId_at_id_idx" ON "AuditEvent"("tenantId", "at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "AuditEvent_tenantId_tool_id_idx" ON "AuditEvent"("tenantId", "tool", "id" DESC);

-- CreateIndex
CREATE INDEX "AuditEvent_tenantId_verdict_id_idx" ON "AuditEvent"("tenantId", "verdict", "id" DESC);

-- CreateIndex
CREATE INDEX "AuditEvent_tenantId_riskLevel_id_idx" ON "AuditEvent"("tenantId", "riskLevel", "id" DESC);

-- CreateIndex
CREATE INDEX "AuditEvent_tenantId_reviewerId_id_idx" ON "AuditEvent"("tenantId", "reviewerId", "id" DESC);

-- CreateIndex
CREATE INDEX "AuditEvent_tenantId_requester_id_idx" ON "AuditEvent"("tenantId", "requester", "id" DESC);

-- CreateIndex
CREATE INDEX "AuditEvent_tenantId_status_id_idx" ON "AuditEvent"("tenantId", "status", "id" DESC);

-- CreateIndex
CREATE INDEX "AuditEvent_tenantId_type_id_idx" ON "AuditEvent"("tenantId", "type", "id" DESC);

-- CreateIndex
CREATE INDEX "AuditEvent_tenantId_actionId_idx" ON "AuditEvent"("tenantId", "actionId");

-- CreateIndex
CREATE UNIQUE INDEX "AuditEvent_tenantId_seq_key" ON "AuditEvent"("tenantId", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_prefix_key" ON "ApiKey"("prefix");

-- CreateIndex
CREATE INDEX "ApiKey_tenantId_idx" ON "ApiKey"("tenantId");

-- CreateIndex
CREATE INDEX "Customer_tenantId_email_idx" ON "Customer"("tenantId", "email");

-- CreateIndex
CREATE UNIQUE INDEX "Customer_tenantId_externalRef_key" ON "Customer"("tenantId", "externalRef");

-- CreateIndex
CREATE UNIQUE INDEX "Invoice_cancelKey_key" ON "Invoice"("cancelKey");

-- CreateIndex
CREATE UNIQUE INDEX "Invoice_tenantId_number_key" ON "Invoice"("tenantId", "number");

-- CreateIndex
CREATE UNIQUE INDEX "Refund_idempotencyKey_key" ON "Refund"("idempotencyKey");

-- CreateIndex
CREATE INDEX "Refund_tenantId_invoiceId_idx" ON "Refund"("tenantId", "invoiceId");

-- CreateIndex
CREATE UNIQUE INDEX "EmailOutbox_idempotencyKey_key" ON "EmailOutbox"("idempotencyKey");

-- CreateIndex
CREATE INDEX "EmailOutbox_tenantId_createdAt_idx" ON "EmailOutbox"("tenantId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Dataset_tenantId_name_key" ON "Dataset"("tenantId", "name");

-- AddForeignKey
ALTER TABLE "Membership" ADD CONSTRAINT "Membership_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Membership" ADD CONSTRAINT "Membership_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ToolPolicy" ADD CONSTRAINT "ToolPolicy_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Task" ADD CONSTRAINT "Task_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Action" ADD CONSTRAINT "Action_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Action" ADD CONSTRAINT "Action_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "Task"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ActionRevision" ADD CONSTRAINT "ActionRevision_actionId_fkey" FOREIGN KEY ("actionId") REFERENCES "Action"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Decision" ADD CONSTRAINT "Decision_actionId_fkey" FOREIGN KEY ("actionId") REFERENCES "Action"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Decision" ADD CONSTRAINT "Decision_revisionId_fkey" FOREIGN KEY ("revisionId") REFERENCES "ActionRevision"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Snapshot" ADD CONSTRAINT "Snapshot_actionId_fkey" FOREIGN KEY ("actionId") REFERENCES "Action"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Snapshot" ADD CONSTRAINT "Snapshot_revisionId_fkey" FOREIGN KEY ("revisionId") REFERENCES "ActionRevision"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Execution" ADD CONSTRAINT "Execution_actionId_fkey" FOREIGN KEY ("actionId") REFERENCES "Action"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Customer" ADD CONSTRAINT "Customer_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Invoice" ADD CONSTRAINT "Invoice_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Invoice" ADD CONSTRAINT "Invoice_customerId_fkey" FOREIGN KEY ("customerId") REFERENCES "Customer"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Refund" ADD CONSTRAINT "Refund_invoiceId_fkey" FOREIGN KEY ("invoiceId") REFERENCES "Invoice"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Dataset" ADD CONSTRAINT "Dataset_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- ---------------------------------------------------------------------------------------------
-- Audit events are append-only (SPEC invariant 6): the database itself refuses UPDATE, DELETE
-- and TRUNCATE, whoever asks. Only a superuser disabling the triggers can edit a row, and the hash
-- chain verifier finds that.
-- Prisma's JavaScript schema engine splits a migration on every semicolon, even inside quoted
-- function bodies, so the body's semicolons are written as the escape \073.
CREATE FUNCTION "audit_event_append_only"() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN RAISE EXCEPTION ''AuditEvent is append-only: % refused'', TG_OP USING ERRCODE = ''insufficient_privilege''\073 END\073';

CREATE TRIGGER "audit_event_no_update" BEFORE UPDATE ON "AuditEvent"
  FOR EACH ROW EXECUTE FUNCTION "audit_event_append_only"();
CREATE TRIGGER "audit_event_no_delete" BEFORE DELETE ON "AuditEvent"
  FOR EACH ROW EXECUTE FUNCTION "audit_event_append_only"();
CREATE TRIGGER "audit_event_no_truncate" BEFORE TRUNCATE ON "AuditEvent"
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_event_append_only"();

-- Money never goes negative and refunds never exceed what was paid.
ALTER TABLE "Invoice" ADD CONSTRAINT "invoice_amounts_valid"
  CHECK ("amountDueMinor" >= 0 AND "amountPaidMinor" >= 0 AND "amountRefundedMinor" >= 0
         AND "amountRefundedMinor" <= "amountPaidMinor");
ALTER TABLE "Refund" ADD CONSTRAINT "refund_amount_positive" CHECK ("amountMinor" > 0);
ALTER TABLE "Action" ADD CONSTRAINT "action_quorum_positive" CHECK ("quorum" >= 1);
