import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type WebhookEndpointForSend = {
  id: string;
  tenantId: string;
  url: string;
  allowPrivate: boolean;
  secrets: string;
  /** The previous secret still signs (a rotation's overlap has not ended, by the database clock). */
  previousValid: boolean;
};

/** The enabled endpoints among `ids`, as a delivery to them is signed and sent. */
export async function readWebhookEndpointsForSend(q: Queryable, input: { ids: string[] }): Promise<WebhookEndpointForSend[]> {
  if (input.ids.length === 0) return [];
  return query<WebhookEndpointForSend>(q, Prisma.sql`
    SELECT e.id::text AS id, e."tenantId"::text AS "tenantId", e.url, e."allowPrivate", e.secrets,
      (e."previousSecretUntil" IS NOT NULL AND e."previousSecretUntil" > now()) AS "previousValid"
    FROM "WebhookEndpoint" e WHERE e.id = ANY (${input.ids}::uuid[]) AND e."disabledAt" IS NULL`);
}
