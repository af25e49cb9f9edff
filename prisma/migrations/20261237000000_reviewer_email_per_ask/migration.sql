-- A reviewer notice is unique per ask (the audit event that asked), not per reason: an action
-- whose approvals stop counting a second time at the same revision asks its reviewers again.
-- A repeated producer pass over the same event still adds nothing.

-- DropIndex
DROP INDEX "ReviewerEmail_actionId_revision_userId_reason_key";

-- CreateIndex
CREATE UNIQUE INDEX "ReviewerEmail_actionId_revision_userId_reason_auditSeq_key" ON "ReviewerEmail"("actionId", "revision", "userId", "reason", "auditSeq");
