import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Gives every tenant without one a cursor of `channel` at the start of its log, for channels with
 * one subscription per tenant that need no setting up (reviewer emails: the producer only asks
 * about actions still waiting, so reading old leaves sends nothing stale).
 */
export async function ensureTenantCursors(q: Queryable, input: { channel: string }): Promise<void> {
  await query(q, Prisma.sql`
    INSERT INTO "OutboxCursor" (channel, "subscriptionId", "tenantId")
    SELECT ${input.channel}, t.id, t.id FROM "Tenant" t
    WHERE NOT EXISTS (SELECT 1 FROM "OutboxCursor" c WHERE c.channel = ${input.channel} AND c."subscriptionId" = t.id)
    ON CONFLICT (channel, "subscriptionId") DO NOTHING`);
}
