-- Files a code run leaves in /mnt/out, kept with its execution (bytes with their SHA-256).
-- CreateTable
CREATE TABLE "ExecutionArtifact" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "executionId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "contentType" TEXT NOT NULL,
    "sizeBytes" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "data" BYTEA NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ExecutionArtifact_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ExecutionArtifact_tenantId_executionId_idx" ON "ExecutionArtifact"("tenantId", "executionId");

-- CreateIndex
CREATE UNIQUE INDEX "ExecutionArtifact_executionId_name_key" ON "ExecutionArtifact"("executionId", "name");

-- AddForeignKey
ALTER TABLE "ExecutionArtifact" ADD CONSTRAINT "ExecutionArtifact_executionId_fkey" FOREIGN KEY ("executionId") REFERENCES "Execution"("id") ON DELETE CASCADE ON UPDATE CASCADE;

