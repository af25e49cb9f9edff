-- Every vote, claim and receipt reads a revision's request snapshot by "revisionId" and phase.
-- The existing index leads with "actionId", so those reads walked all of "Snapshot": the cost of
-- each execution grew with every action ever proposed (issue 13, bench:api --statements).

-- CreateIndex
CREATE INDEX "Snapshot_revisionId_phase_idx" ON "Snapshot"("revisionId", "phase");
