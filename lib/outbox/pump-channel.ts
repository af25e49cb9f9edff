import type { Db } from "@/lib/db/client";
import { claimOutboxSend } from "@/lib/db/statements/outbox/claim-outbox-send";
import { enqueueOutbox } from "@/lib/db/statements/outbox/enqueue-outbox";
import { ensureTenantCursors } from "@/lib/db/statements/outbox/ensure-tenant-cursors";
import { leaseOutbox, type LeasedOutboxRow } from "@/lib/db/statements/outbox/lease-outbox";
import { recordCutOffSends } from "@/lib/db/statements/outbox/record-cut-off-sends";
import { recordOutboxAttempt } from "@/lib/db/statements/outbox/record-outbox-attempt";
import type { Addressed, Channel, Delivered, OutboxChannel, PumpResult } from "@/lib/outbox/channel";
import { retryDelayMs } from "@/lib/outbox/retry-delay";

/** The messages a lease makes: each row alone, the rows of one batch (a member's digest) together. */
function messagesOf(rows: LeasedOutboxRow[]): LeasedOutboxRow[][] {
  const batches = new Map<string, LeasedOutboxRow[]>();
  const messages: LeasedOutboxRow[][] = [];
  for (const row of rows) {
    if (row.batchKey === null) messages.push([row]);
    else {
      const batch = batches.get(row.batchKey) ?? [];
      if (batch.length === 0) batches.set(row.batchKey, batch);
      batch.push(row);
    }
  }
  return [...messages, ...batches.values()];
}

const messageOf = (error: unknown, fallback: string) => (error instanceof Error ? error.message : fallback).slice(0, 500);

/**
 * One message's attempt: its recipients now, the send let go by claimOutboxSend (which skips a
 * removed endpoint or a member no longer asked), then render, deliver, record.
 */
async function attempt<R, M>(db: Db, channel: Channel<R, M>, workerId: string, now: Date | null, rows: LeasedOutboxRow[]): Promise<void> {
  const policy = channel.retry();
  const retryAfterSeconds = retryDelayMs(Math.max(...rows.map((row) => row.attempts)), policy.baseMs) / 1000;
  const version = rows.map((row) => BigInt(row.version)).reduce((a, b) => (a > b ? a : b)).toString();
  const record = (ids: string[], outcome: "sent" | "skipped" | "retry" | "failed", error: string | null, state: Delivered["state"] = undefined) =>
    recordOutboxAttempt(db, { ids, workerId, version, outcome, error: error?.slice(0, 500) ?? null, retryAfterSeconds, state: state ?? null });
  let claimed: Array<Addressed<R>> = [];
  let delivered: Delivered;
  try {
    const addressed = await channel.address(db, rows);
    for (const item of addressed) {
      if ("skip" in item) await record([item.row.id], "skipped", item.skip);
      if ("failure" in item) await record([item.row.id], channel.retries(item.failure) ? "retry" : "failed", item.failure.error);
    }
    const ready = addressed.filter((item): item is Addressed<R> => "recipient" in item);
    const allowed = await claimOutboxSend(db, { ids: ready.map((item) => item.row.id), workerId, now, stillWantedSql: channel.sql.stillWantedSql });
    const dropped = ready.filter((item) => !allowed.has(item.row.id)).map((item) => item.row.id);
    if (dropped.length > 0) await record(dropped, "skipped", null);
    claimed = ready.filter((item) => allowed.has(item.row.id));
    if (claimed.length === 0) return;
    delivered = await channel.deliver(channel.render(claimed), claimed);
  } catch (error) {
    delivered = { ok: false, error: messageOf(error, "The message could not be prepared."), code: null };
  }
  const ids = (claimed.length > 0 ? claimed.map((item) => item.row) : rows).map((row) => row.id);
  if (delivered.ok) await record(ids, "sent", null, delivered.state);
  else await record(ids, channel.retries(delivered) ? "retry" : "failed", delivered.error, delivered.state);
}

/**
 * One pass of one channel: queue what new leaves ask for, then, when enabled, mark sends cut off
 * by a crash, lease what is due and send up to `limit` concurrently. `now` moves the lease's clock.
 */
async function pumpChannel<R, M>(db: Db, channel: Channel<R, M>, options: { workerId: string; limit?: number; now?: Date }): Promise<PumpResult> {
  const policy = channel.retry();
  const name = channel.sql.channel;
  if (channel.cursors === "per_tenant") await ensureTenantCursors(db, { channel: name });
  const added = await enqueueOutbox(db, { sql: channel.sql, batch: 1000, retryWindowSeconds: policy.windowSeconds, params: channel.params() });
  if (!channel.enabled()) return { added, attempted: 0 };
  const now = options.now ?? null;
  if (channel.sql.afterCrash === "unknown") await recordCutOffSends(db, { channel: name, now });
  const leased = await leaseOutbox(db, {
    channel: name, workerId: options.workerId, leaseSeconds: policy.leaseSeconds, limit: options.limit ?? 16, now, afterCrash: channel.sql.afterCrash,
  });
  const messages = messagesOf(leased);
  await Promise.all(messages.map((rows) => attempt(db, channel, options.workerId, now, rows)));
  return { added, attempted: messages.length };
}

/** The channel as registries and workers hold it (its recipient and message types hidden). */
export function outboxChannel<R, M>(channel: Channel<R, M>): OutboxChannel {
  return {
    sql: channel.sql, cursors: channel.cursors, statusLabels: channel.statusLabels, resendable: channel.resendable,
    retry: () => channel.retry(),
    pump: (db, options) => pumpChannel(db, channel, options),
  };
}
