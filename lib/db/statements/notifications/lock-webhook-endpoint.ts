import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";

/**
 * Reads an endpoint of the tenant with its row locked until the transaction ends, so a change
 * that derives from what it read (a secret rotation keeps the current secret as the previous one)
 * is not lost to a concurrent one. Null: no such endpoint in the tenant.
 */
export async function lockWebhookEndpoint(tx: SqlClient, input: { tenantId: string; endpointId: string }): Promise<{ url: string; secrets: string } | null> {
  const [row] = await query<{ url: string; secrets: string }>(tx, Prisma.sql`
    SELECT url, secrets FROM "WebhookEndpoint" WHERE id = ${input.endpointId}::uuid AND "tenantId" = ${input.tenantId}::uuid FOR UPDATE`);
  return row ?? null;
}
