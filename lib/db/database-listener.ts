import type { Client, Notification } from "pg";
import { isClosed, sqlClientOf, type Queryable } from "@/lib/db/sql";
import { dedicatedConnection } from "@/lib/db/pool-registry";
import { pingDatabase } from "@/lib/db/statements/system/ping-database";
import type { Db } from "@/lib/db/client";

export type DatabaseListener = {
  /**
   * True only while every notification committed from now on will arrive: connected, the LISTEN
   * in force, and the last heartbeat answered.
   */
  readonly listening: boolean;
  close(): Promise<void>;
};

export type DatabaseListenerOptions = {
  /** application_name of the listener's connection. */
  name: string;
  channel: string;
  /** The statement that subscribes a session to `channel` (lib/db/statements/). */
  listen: (q: Queryable) => Promise<void>;
  onNotification: (payload: string) => void;
  /**
   * Called with false the moment notifications may have been missed (the connection failed, ended
   * or stopped answering), and with true once a new LISTEN is in force.
   */
  onListeningChange: (listening: boolean) => void;
  /** How often the connection must answer a round trip to count as alive. */
  heartbeatMs?: number;
  /** The first wait before reconnecting (it doubles up to 5 s while attempts fail). */
  retryMs?: number;
};

const HEARTBEAT_MS = 2_000;
const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 5_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * Holds a connection of its own LISTENing on a channel while the client is connected: reconnects
 * with backoff, and counts a connection that misses a heartbeat within `heartbeatMs` as failed (one
 * can die silently). A notification committed while no LISTEN was in force is lost:
 * `onListeningChange(false)` tells the owner so.
 */
export function startDatabaseListener(db: Db, options: DatabaseListenerOptions): DatabaseListener {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const firstRetryMs = options.retryMs ?? FIRST_RETRY_MS;
  let current: Client | null = null;
  let listening = false;
  let closed = false;
  let retryMs = firstRetryMs;
  let timer: NodeJS.Timeout | undefined;

  const setListening = (value: boolean) => {
    if (listening === value) return;
    listening = value;
    options.onListeningChange(value);
  };
  const later = (fn: () => void, ms: number) => {
    clearTimeout(timer);
    timer = setTimeout(fn, ms);
    timer.unref();
  };

  function lose(conn: Client): void {
    if (current !== conn) return;
    current = null;
    setListening(false);
    void conn.end().catch(() => {});
    if (closed || isClosed(db)) return;
    later(() => void connect(), retryMs);
    retryMs = Math.max(firstRetryMs, Math.min(retryMs * 2, LAST_RETRY_MS));
  }

  async function connect(): Promise<void> {
    if (closed || isClosed(db)) return;
    const conn = dedicatedConnection(db, options.name);
    current = conn;
    // Notifications from any connection of ours count, even one being replaced: they only ever
    // make the owner forget something.
    conn.on("notification", (message: Notification) => {
      if (message.channel === options.channel) options.onNotification(message.payload ?? "");
    });
    conn.on("error", () => lose(conn));
    conn.on("end", () => lose(conn));
    try {
      await conn.connect();
      await options.listen(sqlClientOf(conn));
    } catch {
      lose(conn);
      return;
    }
    if (current !== conn) return;
    retryMs = firstRetryMs;
    setListening(true);
    later(() => void heartbeat(conn), heartbeatMs);
  }

  async function heartbeat(conn: Client): Promise<void> {
    const answered = await Promise.race([
      pingDatabase(sqlClientOf(conn)).then(() => true, () => false),
      sleep(heartbeatMs).then(() => false),
    ]);
    if (current !== conn) return;
    if (!answered) return lose(conn);
    later(() => void heartbeat(conn), heartbeatMs);
  }

  void connect();
  return {
    get listening() {
      return listening;
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      const conn = current;
      current = null;
      setListening(false);
      if (conn) await conn.end().catch(() => {});
    },
  };
}
