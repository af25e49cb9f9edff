import type { Db } from "@/lib/db/client";
import { flushWithClient } from "@/lib/db/flush-on-signals";
import { perClient } from "@/lib/db/per-client";
import { countRateLimitedRequests, type RateLimitBucketState } from "@/lib/db/statements/api-keys/count-rate-limited-requests";
import { readEnv } from "@/lib/env";

export type RateLimit = { limit: number; windowSeconds: number };
export type RateLimitResult = { allowed: boolean; count: number; limit: number; retryAfterSeconds: number; resetAt: Date };

/** Requests per key per window; COUNTERSIGN_API_RATE_LIMIT / COUNTERSIGN_API_RATE_WINDOW_SECONDS override. */
export function apiRateLimit(): RateLimit {
  return { limit: readEnv("COUNTERSIGN_API_RATE_LIMIT") ?? 120, windowSeconds: readEnv("COUNTERSIGN_API_RATE_WINDOW_SECONDS") ?? 60 };
}

/** How often a process adds the requests it counted to the shared counters, while it has any. */
export const RATE_LIMIT_SYNC_MS = 100;

export type RateLimiter = {
  consume(key: string, rule: RateLimit): Promise<RateLimitResult>;
  /** Adds everything counted so far to the shared counters now. */
  flush(): Promise<void>;
};

type Waiter = { limit: number; resolve: (result: RateLimitResult) => void; reject: (error: unknown) => void };

type Bucket = {
  windowSeconds: number;
  /** The shared count at the last reconciliation: every instance's requests, this one's included. */
  shared: number;
  /** Counted here, in the statement now running. */
  sending: number;
  /** Counted here since. */
  unsent: number;
  /** When the window ends, by the database clock; null until this process has reconciled the key. */
  resetAtMs: number | null;
  /** Requests waiting for a reconciliation to be counted and answered. */
  waiting: Waiter[];
};

type Sent = { key: string; bucket: Bucket; unsent: number; waiters: Waiter[] };

/**
 * Fixed-window rate limits shared by every app instance through one counter row per key
 * (RateLimitBucket), without a committed write per request. Each process counts its own requests
 * in memory and answers from the shared count it last read plus its own since; at most
 * RATE_LIMIT_SYNC_MS after it counted a request it adds its counts to the shared counters and
 * reads them back, all keys in one statement (count-rate-limited-requests.ts). The first request
 * for a key in each window (per process) waits for that statement, so a process never answers
 * for a window it has not read; refused requests are counted too, as before.
 *
 * The bound: a process's own requests are always in its view, so a single instance enforces the
 * limit exactly. What a view can miss is other instances' requests since its last reconciliation,
 * and a process reconciles within one sync period of any request it admits; so with several
 * instances a key can exceed its limit by about the requests the other instances admit for it in
 * one sync period (100 ms by default: a key sending 50 requests/s through each of three instances
 * gets about 10 more per window). Requests counted in the last moments of a window may be added
 * to the next one.
 */
export function createRateLimiter(db: Db, options: { syncMs?: number } = {}): RateLimiter {
  const buckets = new Map<string, Bucket>();
  const clock: Clock = { offsetMs: 0 };
  const sync = syncLoop(options.syncMs ?? RATE_LIMIT_SYNC_MS, async () => {
    if (await reconcile(db, buckets, clock)) sync.later();
  });

  return {
    consume(key, rule) {
      const known = buckets.get(key);
      let bucket = known;
      // A window that has ended (or a different window length) is read afresh.
      if (bucket && (bucket.windowSeconds !== rule.windowSeconds || (bucket.resetAtMs !== null && bucket.resetAtMs <= databaseNow(clock)))) bucket = undefined;
      if (!bucket) {
        bucket = { windowSeconds: rule.windowSeconds, shared: 0, sending: 0, unsent: 0, resetAtMs: null, waiting: known?.waiting ?? [] };
        buckets.set(key, bucket);
      }
      if (bucket.resetAtMs === null) {
        const waiting = bucket.waiting;
        return new Promise<RateLimitResult>((resolve, reject) => {
          waiting.push({ limit: rule.limit, resolve, reject });
          sync.soon();
        });
      }
      bucket.unsent += 1;
      sync.later();
      return Promise.resolve(answer(clock, bucket.shared + bucket.sending + bucket.unsent, rule.limit, bucket.resetAtMs));
    },
    flush: () => sync.now(),
  };
}

/** The database clock minus this process's, as of the last reconciliation. */
type Clock = { offsetMs: number };

const databaseNow = (clock: Clock) => Date.now() + clock.offsetMs;

function answer(clock: Clock, count: number, limit: number, resetAtMs: number): RateLimitResult {
  return {
    allowed: count <= limit,
    count,
    limit,
    retryAfterSeconds: Math.max(1, Math.ceil((resetAtMs - databaseNow(clock)) / 1000)),
    resetAt: new Date(resetAtMs),
  };
}

/**
 * Runs `work` one call at a time: soon (the requests of this tick together), later (after
 * `syncMs`), or now; a call asked for while one runs follows it.
 */
function syncLoop(syncMs: number, work: () => Promise<void>) {
  let timer: NodeJS.Timeout | undefined;
  let soon = false;
  let running: Promise<void> | null = null;
  let again = false;

  function run(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = work().finally(() => {
      running = null;
      if (again) {
        again = false;
        void run();
      }
    });
    return running;
  }

  return {
    soon(): void {
      // Requests of the same tick share the statement.
      if (soon) return;
      soon = true;
      queueMicrotask(() => {
        soon = false;
        void run();
      });
    },
    later(): void {
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        void run();
      }, syncMs);
      timer.unref();
    },
    now(): Promise<void> {
      clearTimeout(timer);
      timer = undefined;
      return run().then(() => (running ? running : undefined));
    },
  };
}

/**
 * Adds this process's counts to the shared counters and reads them back, all keys in one
 * statement, and answers the requests that waited for it. True when counts are left to send
 * again (the statement failed).
 */
async function reconcile(db: Db, buckets: Map<string, Bucket>, clock: Clock): Promise<boolean> {
  const sent: Sent[] = [];
  for (const [key, bucket] of buckets) {
    if (bucket.unsent === 0 && bucket.waiting.length === 0) {
      if (bucket.resetAtMs !== null && bucket.resetAtMs <= databaseNow(clock) && bucket.sending === 0) buckets.delete(key);
      continue;
    }
    sent.push({ key, bucket, unsent: bucket.unsent, waiters: bucket.waiting.splice(0) });
    bucket.sending += bucket.unsent;
    bucket.unsent = 0;
  }
  if (sent.length === 0) return false;
  let rows: RateLimitBucketState[];
  try {
    rows = await countRateLimitedRequests(db, {
      counts: sent.map((s) => ({ key: s.key, requests: s.unsent + s.waiters.length, windowSeconds: s.bucket.windowSeconds })),
    });
  } catch (error) {
    // Counted again next time; whoever waits for an answer gets the error.
    for (const s of sent) {
      s.bucket.sending -= s.unsent;
      s.bucket.unsent += s.unsent;
      for (const waiter of s.waiters) waiter.reject(error);
    }
    return sent.some((s) => s.unsent > 0);
  }
  const receivedAt = Date.now();
  const byKey = new Map(rows.map((row) => [row.key, row]));
  for (const s of sent) {
    const row = byKey.get(s.key);
    s.bucket.sending -= s.unsent;
    if (!row) {
      s.bucket.unsent += s.unsent;
      for (const waiter of s.waiters) waiter.reject(new Error(`The rate-limit statement did not count ${s.key}.`));
      continue;
    }
    clock.offsetMs = row.databaseNow.getTime() - receivedAt;
    s.bucket.shared = row.count;
    s.bucket.resetAtMs = row.resetAt.getTime();
    // The waiters were counted last of this process's requests: they get the top counts.
    s.waiters.forEach((waiter, i) => waiter.resolve(answer(clock, row.count - s.waiters.length + 1 + i, waiter.limit, row.resetAt.getTime())));
  }
  return false;
}

/** The process's limiter for the client; what it counted is added to the shared counters on disconnect and on SIGTERM/SIGINT too. */
export function rateLimiterFor(db: Db): RateLimiter {
  return perClient("rateLimiter", db, () => {
    const limiter = createRateLimiter(db);
    flushWithClient(db, () => limiter.flush());
    return limiter;
  });
}

/** Counts one request under `key` (see createRateLimiter) and says whether it is within the limit. */
export function consumeRateLimit(db: Db, key: string, rule: RateLimit = apiRateLimit()): Promise<RateLimitResult> {
  return rateLimiterFor(db).consume(key, rule);
}

export function apiKeyRateLimitKey(apiKeyId: string): string {
  return `api-key:${apiKeyId}`;
}
