import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import { query, type Queryable } from "@/lib/db/sql";

/** A limit on attempts per key: at most `limit` (null: no limit, only counted) per window. */
export type AttemptLimit = { limit: number | null; windowSeconds: number };

/**
 * A CTE `name` that counts one attempt against `key` in "RateLimitBucket" as one conditional
 * upsert: a fresh window (database clock) once the old one ran out, else one more unless the limit
 * is reached (then no row). `gate`: an earlier CTE that must have returned a row. Concurrent
 * upserts of one key queue on its row.
 */
function countAttemptCte(name: string, key: string, rule: AttemptLimit, gate?: string): Sql {
  const expired = Prisma.sql`"RateLimitBucket"."windowStart" <= now() - make_interval(secs => ${rule.windowSeconds})`;
  return Prisma.sql`${Prisma.raw(name)} AS (
    INSERT INTO "RateLimitBucket" (key, "windowStart", count)
    SELECT ${key}, now(), 1 ${gate ? Prisma.raw(`FROM ${gate}`) : Prisma.empty}
    ON CONFLICT (key) DO UPDATE SET
      count = CASE WHEN ${expired} THEN 1 ELSE "RateLimitBucket".count + 1 END,
      "windowStart" = CASE WHEN ${expired} THEN now() ELSE "RateLimitBucket"."windowStart" END
    WHERE ${rule.limit === null ? Prisma.sql`true` : Prisma.sql`${expired} OR "RateLimitBucket".count < ${rule.limit}`}
    RETURNING count)`;
}

/**
 * Counts one attempt against each key in turn, each only if every earlier one had room, in one
 * statement. Returns each key's count after this attempt, or null from the first key that was
 * full onwards (nothing was counted for those).
 */
export async function countAttempts(q: Queryable, counters: Array<{ key: string } & AttemptLimit>): Promise<Array<number | null>> {
  const names = counters.map((_, i) => `counted_${i}`);
  const ctes = counters.map((counter, i) => countAttemptCte(names[i], counter.key, counter, i > 0 ? names[i - 1] : undefined));
  const columns = names.map((name) => Prisma.raw(`(SELECT count FROM ${name}) AS ${name}`));
  const [row] = await query<Record<string, number | null>>(q, Prisma.sql`WITH ${Prisma.join(ctes, ", ")} SELECT ${Prisma.join(columns, ", ")}`);
  return names.map((name) => row[name]);
}

/** Hands one counted attempt back (an attempt that did not happen after all, or that succeeded). */
export async function giveBackAttempt(q: Queryable, key: string): Promise<void> {
  await query(q, Prisma.sql`UPDATE "RateLimitBucket" SET count = greatest(count - 1, 0) WHERE key = ${key}`);
}

/** Forgets every attempt counted against these keys. */
export async function forgetAttempts(q: Queryable, keys: string[]): Promise<void> {
  await query(q, Prisma.sql`DELETE FROM "RateLimitBucket" WHERE key = ANY(${keys}::text[])`);
}
