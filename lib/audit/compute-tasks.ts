// Pure functions of plain data whose cost grows with the input: they run on the compute pool
// (lib/compute/compute-pool.ts) through the tasks declared in compute.ts beside this file.
import { sealTrees as seal, type TreeSealed } from "@/lib/audit/seal-events";
import type { TreeToSeal } from "@/lib/db/statements/audit/read-audit-trees-to-seal";

/** The seals of a sealing pass's trees (seal-audit-chain.ts), off the request thread. */
export async function sealTrees(input: { trees: TreeToSeal[]; macKey: Uint8Array; legacyCeiling: string }): Promise<TreeSealed[]> {
  const macKey = Buffer.from(input.macKey.buffer, input.macKey.byteOffset, input.macKey.byteLength);
  return seal(input.trees, macKey, BigInt(input.legacyCeiling));
}
