-- A reviewer whose approval stopped counting (the passkey that signed it was removed) may approve
-- again with another: a revision can hold more than one decision of a reviewer, of which at most
-- one counts. The vote statement checks that under the action's row lock (cast-vote.ts).

-- DropIndex
DROP INDEX "Decision_revisionId_reviewerId_key";

-- CreateIndex
CREATE INDEX "Decision_revisionId_reviewerId_idx" ON "Decision"("revisionId", "reviewerId");
