-- The stop button: a tenant's agents, or one API key, paused until resumed

-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "pausedAt" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "Tenant" ADD COLUMN     "agentsPausedAt" TIMESTAMPTZ(3),
ADD COLUMN     "agentsPausedById" UUID,
ADD COLUMN     "agentsPausedReason" TEXT;
