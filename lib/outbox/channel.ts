import type { Db } from "@/lib/db/client";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { OutboxChannelSql } from "@/lib/db/statements/outbox/outbox-channel-sql";
import type { LeasedOutboxRow } from "@/lib/db/statements/outbox/lease-outbox";
import type { OutboxStatus } from "@/lib/db/statements/outbox/record-outbox-attempt";

/** How a channel retries: the first delay (doubling to an hour, ±50 % jitter), how long before `failed`, and a lease's length. */
export type RetryPolicy = { baseMs: number; windowSeconds: number; leaseSeconds: number };

/** A failed attempt as the channel saw it: the error to store (never a secret) and the receiver's code, if any. */
export type DeliveryFailure = { error: string; code: string | number | null };

/** How one delivery ended. `state`: what the channel keeps of its sends (merged into the row's). */
export type Delivered = { ok: true; state?: JsonObject } | ({ ok: false; state?: JsonObject } & DeliveryFailure);

/** A leased row and who it goes to now. */
export type Addressed<R> = { row: LeasedOutboxRow; recipient: R };

/** What becomes of a leased row before its send: sent to a recipient, skipped (why, or null), or a failed attempt. */
export type Addressing<R> = Addressed<R> | { row: LeasedOutboxRow; skip: string | null } | { row: LeasedOutboxRow; failure: DeliveryFailure };

/** What the mechanism and the admin pages know of a channel, whatever it sends. */
export type ChannelInfo = {
  /** As data, built once at module load: the event mapping, the rows it queues (recipients), the rule a send re-checks. */
  readonly sql: OutboxChannelSql;
  /** Who makes its cursors: the outbox (one per tenant, from the start of its log), or the channel's own settings. */
  readonly cursors: "per_tenant" | "own";
  /** How its statuses read to a person (a webhook is "delivered"); unlisted ones as they are. */
  readonly statusLabels: Partial<Record<OutboxStatus, string>>;
  /** The statuses from which an admin may send a message again. */
  readonly resendable: OutboxStatus[];
  /** Its retry policy, read per pass (its own settings: no channel borrows another's). */
  retry(): RetryPolicy;
};

/**
 * A notification channel: what it sends for which audit event, to whom, how it renders and
 * delivers, and which errors a retry can change, over the one outbox mechanism (pump-channel.ts;
 * docs/DESIGN.md, "One outbox for every notification"). Adding one: a folder with one of these and
 * a line in lib/channels/registered-channels.ts.
 */
export interface Channel<R, M> extends ChannelInfo {
  /** Parameters of its producer's SQL (e.g. the console's URL), read per pass. */
  params(): Record<string, string | number>;
  /** False: rows are queued but not sent yet (no SMTP server configured). */
  enabled(): boolean;
  /** Who each leased row goes to now (read at send time, not when queued), or why it is skipped. */
  address(db: Db, rows: LeasedOutboxRow[]): Promise<Array<Addressing<R>>>;
  /** The one message for the rows whose send may go (a row alone, or a batch: a member's digest). */
  render(items: Array<Addressed<R>>): M;
  /** Delivers it once. Never throws. */
  deliver(message: M, items: Array<Addressed<R>>): Promise<Delivered>;
  /** Whether a retry can change this failure (a receiver's "gone", an invalid message: it cannot). */
  retries(failure: DeliveryFailure): boolean;
}

export type PumpResult = { added: number; attempted: number };

/** A channel ready to run, its recipient and message types hidden: what registries and workers hold. */
export type OutboxChannel = ChannelInfo & {
  /** One pass: queue what the log asks for, then send what is due (up to `limit` messages). `now` moves the clock (tests). */
  pump(db: Db, options: { workerId: string; limit?: number; now?: Date }): Promise<PumpResult>;
};
