-- MCP sessions live in the database, not in one console's memory: any instance behind a load
-- balancer continues a session another began, and a session ended on one is refused on all.
-- A call still being answered holds a leased row, so an idle session is told from a busy one and
-- a cancellation (or the session's end) that reaches another instance reaches the call.

-- CreateTable
CREATE TABLE "McpSession" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "apiKeyId" UUID NOT NULL,
    "untrusted" JSONB NOT NULL DEFAULT '[]',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" TIMESTAMPTZ(3),

    CONSTRAINT "McpSession_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "McpSessionCall" (
    "sessionId" UUID NOT NULL,
    "requestId" TEXT NOT NULL,
    "actionId" UUID,
    "leaseUntil" TIMESTAMPTZ(3) NOT NULL,
    "cancelReason" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "McpSessionCall_pkey" PRIMARY KEY ("sessionId","requestId")
);

-- CreateIndex
CREATE INDEX "McpSession_apiKeyId_lastSeenAt_idx" ON "McpSession"("apiKeyId", "lastSeenAt");

-- AddForeignKey
ALTER TABLE "McpSession" ADD CONSTRAINT "McpSession_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "McpSession" ADD CONSTRAINT "McpSession_apiKeyId_fkey" FOREIGN KEY ("apiKeyId") REFERENCES "ApiKey"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "McpSessionCall" ADD CONSTRAINT "McpSessionCall_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "McpSession"("id") ON DELETE CASCADE ON UPDATE CASCADE;
