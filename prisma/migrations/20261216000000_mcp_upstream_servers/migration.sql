-- Upstream MCP servers behind the gate: the servers admins register and their tools, each with
-- the definition an admin approved (pinned) and the one its server lists when that differs.
-- CreateEnum
CREATE TYPE "McpTransport" AS ENUM ('http', 'stdio');

-- CreateEnum
CREATE TYPE "McpToolStatus" AS ENUM ('new', 'approved', 'held', 'gone');

-- CreateTable
CREATE TABLE "McpServer" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "transport" "McpTransport" NOT NULL,
    "url" TEXT,
    "command" TEXT,
    "args" TEXT[],
    "secretNames" TEXT[],
    "sealedSecrets" TEXT,
    "createdById" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "listedAt" TIMESTAMPTZ(3),
    "listError" TEXT,

    CONSTRAINT "McpServer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "McpTool" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "serverId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "qualifiedName" TEXT NOT NULL,
    "status" "McpToolStatus" NOT NULL,
    "approved" JSONB,
    "approvedHash" TEXT,
    "approvedById" UUID,
    "approvedAt" TIMESTAMPTZ(3),
    "pending" JSONB,
    "pendingHash" TEXT,
    "seenAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "McpTool_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "McpServer_tenantId_name_key" ON "McpServer"("tenantId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "McpTool_serverId_name_key" ON "McpTool"("serverId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "McpTool_tenantId_qualifiedName_key" ON "McpTool"("tenantId", "qualifiedName");

-- AddForeignKey
ALTER TABLE "McpServer" ADD CONSTRAINT "McpServer_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "McpTool" ADD CONSTRAINT "McpTool_serverId_fkey" FOREIGN KEY ("serverId") REFERENCES "McpServer"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- A server is reached one way: an HTTP endpoint, or a command on the console's host.
ALTER TABLE "McpServer" ADD CONSTRAINT "McpServer_endpoint_check" CHECK (
  (transport = 'http' AND url IS NOT NULL AND command IS NULL) OR (transport = 'stdio' AND command IS NOT NULL AND url IS NULL));

-- A tool's status and its definitions agree: an approved tool has its pinned definition and
-- nothing pending, a held one both, a new one only what its server lists.
ALTER TABLE "McpTool" ADD CONSTRAINT "McpTool_status_check" CHECK (
  (status <> 'approved' OR (approved IS NOT NULL AND "approvedHash" IS NOT NULL AND pending IS NULL AND "pendingHash" IS NULL))
  AND (status <> 'held' OR (approved IS NOT NULL AND "approvedHash" IS NOT NULL AND pending IS NOT NULL AND "pendingHash" IS NOT NULL))
  AND (status <> 'new' OR (approved IS NULL AND "approvedHash" IS NULL AND pending IS NOT NULL AND "pendingHash" IS NOT NULL)));
