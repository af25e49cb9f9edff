import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Records how a leased attempt ended, if `workerId` still holds the lease: delivered (a 2xx),
 * due again after `retryAfterSeconds`, or failed for good once that would pass its give-up time
 * (database clock). Returns the delivery's status, or null when the lease was lost.
 */
export async function recordWebhookAttempt(
  q: Queryable,
  input: { id: string; workerId: string; ok: boolean; httpStatus: number | null; error: string | null; retryAfterSeconds: number },
): Promise<"delivered" | "pending" | "failed" | null> {
  const [row] = await query<{ status: "delivered" | "pending" | "failed" }>(q, Prisma.sql`
    UPDATE "WebhookDelivery" SET "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "lastStatus" = ${input.httpStatus}::int,
      "lastError" = ${input.error}::text, "updatedAt" = now(),
      status = CASE WHEN ${input.ok} THEN 'delivered'
        WHEN now() + make_interval(secs => ${input.retryAfterSeconds}) > "giveUpAt" THEN 'failed' ELSE 'pending' END,
      "deliveredAt" = CASE WHEN ${input.ok} THEN now() END,
      "nextAttemptAt" = now() + make_interval(secs => ${input.retryAfterSeconds})
    WHERE id = ${input.id}::uuid AND "leaseOwner" = ${input.workerId}
    RETURNING status`);
  return row?.status ?? null;
}
