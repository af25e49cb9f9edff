import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Gives every tenant without one a reviewer-email cursor at the start of its log (the producer
 * only emails about actions still waiting, so reading old leaves sends nothing stale).
 */
export async function ensureNotificationCursors(q: Queryable): Promise<void> {
  await query(q, Prisma.sql`
    INSERT INTO "NotificationCursor" ("tenantId")
    SELECT t.id FROM "Tenant" t WHERE NOT EXISTS (SELECT 1 FROM "NotificationCursor" c WHERE c."tenantId" = t.id)
    ON CONFLICT ("tenantId") DO NOTHING`);
}
