import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/** Where changes to API keys are announced, with the key's id (see the api_key_announcements migration). */
export const API_KEY_CHANGES_CHANNEL = "countersign_api_keys";

/**
 * Subscribes this session to API key changes: once it returns, every change committed afterwards
 * is delivered on the connection. Runs on a dedicated connection (sql.ts `dedicatedConnection`).
 */
export async function listenForApiKeyChanges(q: Queryable): Promise<void> {
  await query(q, Prisma.sql`LISTEN countersign_api_keys`, { prepare: false });
}
