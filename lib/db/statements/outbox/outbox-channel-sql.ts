import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";

/**
 * What the outbox statements need of a channel: SQL fragments it builds once at module load from
 * literals, so the statements know no channel (lib/outbox/channel.ts is the whole interface).
 */
export type OutboxChannelSql = {
  /** The channel's name: the value of OutboxDelivery.channel and OutboxCursor.channel. */
  channel: string;
  /** The channel's event for an audit event `e` (or NULL: not one it sends): eventCaseSql. */
  eventSql: Sql;
  /**
   * The rows to queue, from the CTE `leaves l` (the audit events after each cursor: "tenantId",
   * "subscriptionId", seq, uid, at, type, status, "actionId", tool, "riskLevel", verdict, requester,
   * "subjectType", "subjectId", data, event) and `params` (column v: the pass's jsonb parameters),
   * as "tenantId", "subscriptionId", "auditSeq", "actionId", "dedupeKey", "batchKey", payload, "nextAttemptAt".
   */
  deliveriesSql: Sql;
  /** Whether the subscription of cursor `c` still reads the log (a disabled endpoint does not). */
  subscriptionLiveSql: Sql;
  /** Whether queued row `d` is still to be sent: re-checked by the statement that lets a send go. */
  stillWantedSql: Sql;
  /** A row queued again by a later event: ignored, or due again for a fresh send (a message kept up to date). */
  onRepeat: "ignore" | "send_again";
  /** A send cut off by a crash: tried again (the receiver dedupes by a key), or left `unknown` for a person. */
  afterCrash: "retry" | "unknown";
};

/**
 * The channel's event mapping as SQL, built once: `CASE WHEN <condition over e> THEN '<event>' … END`.
 * Conditions and names are the channel's literals; a name is checked to be a plain word.
 */
export function eventCaseSql(mapping: Record<string, string>): Sql {
  const cases = Object.entries(mapping).map(([event, condition]) => {
    if (!/^[a-z_.]+$/.test(event)) throw new Error(`Not an event name: ${event}`);
    return `WHEN ${condition} THEN '${event}'`;
  });
  return Prisma.raw(`CASE ${cases.join(" ")} END`);
}
