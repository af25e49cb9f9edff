import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { GENESIS_HASH } from "@/lib/audit/audit-record";

/**
 * The head of an empty chain for the tenant (seq 0, the genesis hash), unless it has one: every
 * tenant gets its head when it is created, but one made before that rule gets it here. Two at
 * once are harmless (ON CONFLICT DO NOTHING).
 */
export async function insertGenesisAuditHead(q: Queryable, input: { tenantId: string }): Promise<void> {
  await query(q, Prisma.sql`
    INSERT INTO "AuditHead" ("tenantId", seq, hash, "prevHash", at)
    VALUES (${input.tenantId}::uuid, 0, ${GENESIS_HASH}, ${GENESIS_HASH}, to_timestamp(0))
    ON CONFLICT ("tenantId") DO NOTHING`);
}
