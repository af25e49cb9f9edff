import type { Db } from "@/lib/db/client";
import { createWriteBatcher, type WriteBatcher } from "@/lib/db/write-batcher";
import { writeProposals, type ProposalRow, type ProposalWritten } from "@/lib/db/statements/actions/write-proposals";

const batchers = new WeakMap<Db, WriteBatcher<ProposalRow, ProposalWritten>>();

/**
 * Writes one proposal. Concurrent proposals share a statement (lib/db/write-batcher.ts): under
 * load most of a proposal's cost is the round trip and the commit, not the rows.
 */
export function writeProposal(db: Db, row: ProposalRow): Promise<ProposalWritten> {
  let batcher = batchers.get(db);
  if (!batcher) {
    batcher = createWriteBatcher((rows: ProposalRow[]) => writeProposals(db, rows), { maxInFlight: 2, maxRows: 64 });
    batchers.set(db, batcher);
  }
  return batcher.write(row);
}
