import type { DbTx } from "@/lib/db/client";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { ChannelInfo } from "@/lib/outbox/channel";

export type OutboxDeliveryRow = {
  id: string;
  channel: string;
  subscriptionId: string;
  actionId: string | null;
  /** As a person reads it, in the channel's words (a webhook's sent is "delivered"). */
  status: string;
  /** Whether an admin may send it again now. */
  resendable: boolean;
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  sentAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  payload: JsonObject;
  state: JsonObject;
};

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** The tenant's latest messages of these channels (`statuses`: only those), newest first, for the admin pages. */
export async function listOutboxDeliveries(
  db: DbTx,
  input: { tenantId: string; channels: readonly ChannelInfo[]; statuses?: string[]; take: number },
): Promise<OutboxDeliveryRow[]> {
  const byName = new Map(input.channels.map((channel) => [channel.sql.channel, channel]));
  const rows = await db.outboxDelivery.findMany({
    where: { tenantId: input.tenantId, channel: { in: [...byName.keys()] }, ...(input.statuses ? { status: { in: input.statuses } } : {}) },
    select: {
      id: true, channel: true, subscriptionId: true, actionId: true, status: true, attempts: true, nextAttemptAt: true, lastError: true,
      sentAt: true, createdAt: true, updatedAt: true, payload: true, state: true,
    },
    orderBy: { createdAt: "desc" },
    take: input.take,
  });
  return rows.map((row) => {
    const channel = byName.get(row.channel);
    const status = row.status as keyof ChannelInfo["statusLabels"];
    return {
      ...row,
      status: channel?.statusLabels[status] ?? row.status,
      resendable: channel?.resendable.includes(status) ?? false,
      payload: isObject(row.payload) ? row.payload : {},
      state: isObject(row.state) ? row.state : {},
    };
  });
}
