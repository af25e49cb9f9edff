-- The evidence pack reads a period's votes in pages, oldest first (read-decision-latencies.ts):
-- by tenant and time, each page from where the last ended.

-- CreateIndex
CREATE INDEX "Decision_tenantId_createdAt_id_idx" ON "Decision"("tenantId", "createdAt", "id");
