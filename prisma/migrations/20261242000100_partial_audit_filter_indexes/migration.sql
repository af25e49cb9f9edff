-- The audit explorer's filters on a decision's verdict, its reviewer and a risk level match only
-- events that carry one: most events (every execution's end, every API request's record) carry
-- none, and each of them was still a B-tree insert into these three indexes. Partial indexes keep
-- every filter's plan (`col = $1` implies `col IS NOT NULL`) and skip those inserts.
DROP INDEX "AuditEvent_tenantId_verdict_id_idx";
CREATE INDEX "AuditEvent_tenantId_verdict_id_idx" ON "AuditEvent"("tenantId", "verdict", "id" DESC) WHERE "verdict" IS NOT NULL;
DROP INDEX "AuditEvent_tenantId_reviewerId_id_idx";
CREATE INDEX "AuditEvent_tenantId_reviewerId_id_idx" ON "AuditEvent"("tenantId", "reviewerId", "id" DESC) WHERE "reviewerId" IS NOT NULL;
DROP INDEX "AuditEvent_tenantId_riskLevel_id_idx";
CREATE INDEX "AuditEvent_tenantId_riskLevel_id_idx" ON "AuditEvent"("tenantId", "riskLevel", "id" DESC) WHERE "riskLevel" IS NOT NULL;
