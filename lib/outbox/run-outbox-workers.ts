import type { Db } from "@/lib/db/client";
import type { OutboxChannel } from "@/lib/outbox/channel";
import { runPumpLoop } from "@/lib/outbox/run-pump-loop";

/**
 * The outbox workers: one loop per channel (so one channel's trouble never holds another's), each
 * pumping every `pollMs` until the signal aborts, and one loop for each source of events that
 * runs beside them (the reminder sweeper). Every console and every `npm run worker` runs them;
 * leases keep them from sending a message twice at once, and a message left leased by a crashed
 * worker is due again when its lease lapses (or `unknown`, where the channel cannot honour a key).
 */
export async function runOutboxWorkers(options: {
  db: Db; channels: readonly OutboxChannel[]; sources?: ReadonlyArray<{ name: string; run: (db: Db) => Promise<number> }>;
  signal?: AbortSignal; pollMs?: number; workerId?: string;
}): Promise<void> {
  const loop = (name: string, pump: (workerId: string) => Promise<{ added: number; attempted: number }>) =>
    runPumpLoop({ name, pollMs: options.pollMs ?? 1000, signal: options.signal, workerId: options.workerId, pump });
  await Promise.all([
    ...options.channels.map((channel) => loop(channel.sql.channel, (workerId) => channel.pump(options.db, { workerId }))),
    ...(options.sources ?? []).map((source) => loop(source.name, async () => ({ added: await source.run(options.db), attempted: 0 }))),
  ]);
}
