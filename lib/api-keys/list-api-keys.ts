import type { DbTx } from "@/lib/db/client";
import { API_KEY_PUBLIC_SELECT, type ApiKeyListItem } from "@/lib/api-keys/api-key-summary";

/** The tenant's keys, newest first, revoked ones included (marked); never the secret hash. */
export function listApiKeys(db: DbTx, tenantId: string): Promise<ApiKeyListItem[]> {
  return db.apiKey.findMany({ where: { tenantId }, select: API_KEY_PUBLIC_SELECT, orderBy: { createdAt: "desc" } });
}
