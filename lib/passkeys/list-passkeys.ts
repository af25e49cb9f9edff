import type { Db } from "@/lib/db/client";

export type PasskeySummary = { id: string; name: string; deviceType: string; backedUp: boolean; createdAt: Date; lastUsedAt: Date | null };

/** The member's live passkeys, oldest first (never their keys). */
export async function listPasskeys(db: Db, userId: string): Promise<PasskeySummary[]> {
  return db.passkey.findMany({
    where: { userId, removedAt: null },
    orderBy: { createdAt: "asc" },
    select: { id: true, name: true, deviceType: true, backedUp: true, createdAt: true, lastUsedAt: true },
  });
}
