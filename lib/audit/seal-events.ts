import { auditBodyOfRow, auditLeaf, auditLeafBytes } from "@/lib/audit/audit-record";
import { eventMac, macsEqual, sealMac } from "@/lib/audit/event-mac";
import { appendLeaf, frontierAt, fromHex, leafHash, toHex } from "@/lib/audit/transparency/merkle";
import { MissingSubtreeError } from "@/lib/audit/missing-subtree-error";
import type { EventToSeal, TreeToSeal } from "@/lib/db/statements/audit/read-audit-trees-to-seal";

export type SealsOfTree = {
  tenantId: string;
  seals: Array<{ eventId: string; seq: string; leafHash: string; nodes: string[]; mac: string }>;
  quarantined: Array<{ eventId: string; reason: string }>;
};

/** Why an event cannot be sealed, or null when the console wrote it and it is not yet in the tree. */
function quarantineReason(event: EventToSeal, macKey: Buffer, legacyCeiling: bigint): string | null {
  if (event.mac === null) return BigInt(event.id) <= legacyCeiling ? null : "no MAC: not written by the console";
  const expected = eventMac(macKey, { uid: event.uid, body: auditBodyOfRow(event), omits: event.macOmits });
  if (!macsEqual(event.mac, expected)) return "its MAC does not verify: written or changed outside the console";
  // The MAC cannot bind a place the console does not know when it writes (id, time, seq): one uid, one leaf.
  if (event.sameUidAs !== null) return `a replay: event ${event.sameUidAs} carries the same uid (${event.uid}), and one event is sealed once`;
  return null;
}

/**
 * The seals of one tenant's new events, in the order read (by writing transaction, then id): each
 * event's MAC is checked first (lib/audit/event-mac.ts) and one that fails — not written by the
 * console — is quarantined, never sealed; each sealed event gets its seq, its RFC 6962 leaf hash,
 * the perfect subtrees it completes and the seal's MAC. Pure: run inline for a few events, on the
 * compute pool for a batch (seal-audit-chain.ts).
 */
export async function sealTree(tree: TreeToSeal, macKey: Buffer, legacyCeiling: bigint): Promise<SealsOfTree> {
  const stored = new Map(tree.subtrees.map((s) => [BigInt(s.seq), s]));
  let frontier = await frontierAt(Number(tree.size), async (level, index) => {
    const seq = BigInt(index + 1) * (1n << BigInt(level));
    const row = stored.get(seq);
    const hex = row ? (level === 0 ? row.leafHash : row.nodes[level - 1]) : undefined;
    if (hex === undefined) throw new MissingSubtreeError(`The audit tree of tenant ${tree.tenantId} lacks subtree (${level}, ${index}) at seq ${seq}.`);
    return fromHex(hex);
  });
  const seals: SealsOfTree["seals"] = [];
  const quarantined: SealsOfTree["quarantined"] = [];
  for (const event of tree.events) {
    const reason = quarantineReason(event, macKey, legacyCeiling);
    if (reason) {
      quarantined.push({ eventId: event.id, reason });
      continue;
    }
    const seq = BigInt(frontier.size + 1);
    const id = BigInt(event.id);
    const leaf = leafHash(auditLeafBytes(auditLeaf({ seq, id, uid: event.uid, at: new Date(event.at), mac: event.mac, macOmits: event.macOmits }, auditBodyOfRow(event))));
    const appended = appendLeaf(frontier, leaf);
    frontier = appended.frontier;
    const seal = { seq, eventId: id, leafHash: toHex(leaf), nodes: appended.completed.map((node) => toHex(node.hash)) };
    seals.push({ eventId: event.id, seq: seq.toString(), leafHash: seal.leafHash, nodes: seal.nodes, mac: sealMac(macKey, { tenantId: tree.tenantId, ...seal }) });
  }
  return { tenantId: tree.tenantId, seals, quarantined };
}

/** A tree's seals, or why they could not be computed (that tenant's sealing stops; the others' go on). */
export type TreeSealed = SealsOfTree | { tenantId: string; error: string };

/** sealTree for each of a pass's trees, each failing alone. */
export async function sealTrees(trees: TreeToSeal[], macKey: Buffer, legacyCeiling: bigint): Promise<TreeSealed[]> {
  return Promise.all(
    trees.map((tree) =>
      sealTree(tree, macKey, legacyCeiling).catch((error: unknown) => ({ tenantId: tree.tenantId, error: error instanceof Error ? error.message : String(error) })),
    ),
  );
}
