import { Prisma } from "@/lib/generated/prisma/client";
import { jsonParam, query, type Queryable } from "@/lib/db/sql";
import type { JsonObject } from "@/lib/canonical/json-value";

export type OutboxStatus = "pending" | "sent" | "skipped" | "failed" | "unknown";

/**
 * Records an attempt's end for the rows `workerId` still holds (one, or a digest's): sent or
 * skipped is done unless a later event made the row due again (version past `version`); failed for
 * good; or retried after `retryAfterSeconds`, failed past its give-up time. `state` is merged into
 * the channel's. Returns the rows' status, or null when the lease was lost.
 */
export async function recordOutboxAttempt(
  q: Queryable,
  input: {
    ids: string[]; workerId: string; version: string; outcome: "sent" | "skipped" | "retry" | "failed";
    error: string | null; retryAfterSeconds: number; state: JsonObject | null;
  },
): Promise<OutboxStatus | null> {
  if (input.ids.length === 0) return null;
  const done = input.outcome === "sent" || input.outcome === "skipped";
  const rows = await query<{ status: OutboxStatus }>(q, Prisma.sql`
    UPDATE "OutboxDelivery" SET "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "sendingSince" = NULL, "updatedAt" = now(), "lastError" = ${input.error}::text,
      state = CASE WHEN ${jsonParam(input.state)}::jsonb IS NULL THEN state ELSE COALESCE(state, '{}'::jsonb) || ${jsonParam(input.state)}::jsonb END,
      "sentVersion" = CASE WHEN ${input.outcome === "sent"} THEN GREATEST("sentVersion", ${input.version}::bigint) ELSE "sentVersion" END,
      "sentAt" = CASE WHEN ${input.outcome === "sent"} THEN now() ELSE "sentAt" END,
      status = CASE
        WHEN ${done} AND version <= ${input.version}::bigint THEN ${input.outcome}::text
        WHEN ${done} THEN 'pending'
        WHEN ${input.outcome}::text = 'failed' OR now() + make_interval(secs => ${input.retryAfterSeconds}) > "giveUpAt" THEN 'failed'
        ELSE 'pending' END,
      "nextAttemptAt" = CASE WHEN ${done} THEN now() ELSE now() + make_interval(secs => ${input.retryAfterSeconds}) END
    WHERE id = ANY (${input.ids}::uuid[]) AND "leaseOwner" = ${input.workerId} AND status = 'pending'
    RETURNING status`);
  return rows[0]?.status ?? null;
}
