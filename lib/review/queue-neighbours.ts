import type { Db } from "@/lib/db/client";
import type { Role } from "@/lib/generated/prisma/enums";
import { RISK_RANK } from "@/lib/risk/risk-tag";
import { listReviewQueue } from "@/lib/review/list-review-queue";
import type { QueueItem } from "@/lib/review/queue-item";
import type { QueueCursor } from "@/lib/db/statements/actions/read-review-queue-keys";

export type QueueNeighbours = { previous: string | null; next: string | null };

/**
 * The undecided actions either side of `actionId` in this reviewer's queue order (riskiest first,
 * then soonest to expire): what "next" and "previous" open on the action page, and where a
 * decision there advances to. Undecided means this reviewer may still vote on it (no vote of theirs
 * on the current revision, not a revision they wrote). The action itself need not be pending any
 * more (it was just decided): its sort key still places it. With nothing undecided after it, next
 * wraps to the first undecided action. Another tenant's id places nothing.
 */
export async function queueNeighbours(db: Db, reviewer: { tenantId: string; userId: string; roles: Role[] }, actionId: string): Promise<QueueNeighbours> {
  const undecided = (item: QueueItem) => item.id !== actionId && item.myVote === null && item.blockedReason === null;
  const [anchor, first] = await Promise.all([
    db.action.findFirst({ where: { id: actionId, tenantId: reviewer.tenantId }, select: { id: true, riskRank: true, expiresAt: true } }),
    listReviewQueue(db, reviewer),
  ]);
  const top = first.items.filter(undecided);
  if (!anchor?.expiresAt) return { previous: null, next: top[0]?.id ?? null };
  const cursor: QueueCursor = { riskRank: anchor.riskRank, expiresAt: anchor.expiresAt.toISOString(), id: anchor.id };
  const after = await listReviewQueue(db, reviewer, { after: cursor });
  const next = after.items.find(undecided) ?? top[0] ?? null;
  const previous = top.filter((item) => comesBefore(item, cursor)).at(-1) ?? null;
  return { previous: previous?.id ?? null, next: next?.id ?? null };
}

/** The queue's order: riskRank descending, then expiresAt ascending, then id ascending. */
function comesBefore(item: QueueItem, cursor: QueueCursor): boolean {
  const rank = RISK_RANK[item.riskLevel];
  if (rank !== cursor.riskRank) return rank > cursor.riskRank;
  const expires = Date.parse(item.expiresAt ?? "");
  const anchorExpires = Date.parse(cursor.expiresAt);
  if (expires !== anchorExpires) return expires < anchorExpires;
  return item.id < cursor.id;
}
