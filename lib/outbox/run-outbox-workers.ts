import type { Db } from "@/lib/db/client";
import type { OutboxChannel } from "@/lib/outbox/channel";
import { runPumpLoop } from "@/lib/outbox/run-pump-loop";

/**
 * One loop per channel (one's trouble never holds another's), each pumping every `pollMs` until
 * aborted, and one per event source beside them (the reminder sweeper). Every console and worker
 * runs them; leases keep a message from being sent twice at once.
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
