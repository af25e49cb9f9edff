import type { Db } from "@/lib/db/client";
import { REGISTERED_CHANNELS } from "@/lib/channels/registered-channels";
import { sweepActionReminders } from "@/lib/notifications/sweep-action-reminders";
import { runOutboxWorkers } from "@/lib/outbox/run-outbox-workers";

/**
 * The notification workers every console and every `npm run worker` runs: one outbox loop per
 * registered channel, and the sweeper that fires due escalations and expiry warnings (audited
 * events the channels then announce).
 */
export function runNotificationWorkers(options: { db: Db; signal?: AbortSignal }): Promise<void> {
  return runOutboxWorkers({
    db: options.db, signal: options.signal, channels: REGISTERED_CHANNELS,
    sources: [{ name: "reminders", run: (db) => sweepActionReminders(db) }],
  });
}
