import type { DbTx } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";

/**
 * How sign-in attempts are limited. Nothing here locks an account: a stranger's failures count
 * against the stranger's own client (per account and across accounts), and against the account
 * only as a delay with a ceiling, so the owner on another client still gets in after at most
 * `delay.maxMs`.
 */
export type SignInThrottleRules = {
  /** Counters start with the first counted attempt and last this long (database clock). */
  windowSeconds: number;
  /** Failed attempts on one account from one client. */
  perAccountClient: number;
  /** Failed attempts from one client, across every email it tries. */
  perClient: number;
  /** The wait before the password is checked, growing with the account's recent failures. */
  delay: { freeAttempts: number; baseMs: number; maxMs: number };
};

export const SIGN_IN_WINDOW_MINUTES = 15;

export const SIGN_IN_THROTTLE: SignInThrottleRules = {
  windowSeconds: SIGN_IN_WINDOW_MINUTES * 60,
  perAccountClient: 5,
  perClient: 20,
  delay: { freeAttempts: 3, baseMs: 500, maxMs: 8_000 },
};

export type SignInKeys = { accountClient: string; client: string; account: string };

export function signInKeys(email: string, clientKey: string): SignInKeys {
  return {
    accountClient: `sign-in:account-client:${clientKey}:${email}`,
    client: `sign-in:client:${clientKey}`,
    account: `sign-in:account:${email}`,
  };
}

/** The wait before checking the password on the account's `attempt`-th attempt in the window. */
export function signInDelayMs(attempt: number, rules: SignInThrottleRules = SIGN_IN_THROTTLE): number {
  const over = attempt - rules.delay.freeAttempts;
  if (over <= 0) return 0;
  return Math.min(rules.delay.maxMs, rules.delay.baseMs * 2 ** (over - 1));
}

export type SignInReservation = { ok: true; delayMs: number } | { ok: false };

/**
 * A counter in "RateLimitBucket" bumped by one conditional upsert: a fresh window when the old one
 * has run out, otherwise one more — unless the count has reached `limit`, in which case the row is
 * left alone and nothing is returned. `gate` names an earlier CTE that must have returned a row.
 */
function bump(name: string, key: string, limit: number | null, windowSeconds: number, gate?: string): Prisma.Sql {
  const expired = Prisma.sql`"RateLimitBucket"."windowStart" <= now() - make_interval(secs => ${windowSeconds})`;
  const from = gate ? Prisma.raw(`FROM ${gate}`) : Prisma.empty;
  return Prisma.sql`${Prisma.raw(name)} AS (
    INSERT INTO "RateLimitBucket" (key, "windowStart", count)
    SELECT ${key}, now(), 1 ${from}
    ON CONFLICT (key) DO UPDATE SET
      count = CASE WHEN ${expired} THEN 1 ELSE "RateLimitBucket".count + 1 END,
      "windowStart" = CASE WHEN ${expired} THEN now() ELSE "RateLimitBucket"."windowStart" END
    WHERE ${limit === null ? Prisma.sql`true` : Prisma.sql`${expired} OR "RateLimitBucket".count < ${limit}`}
    RETURNING count)`;
}

/**
 * Takes this attempt's place in every counter before the password is checked, in one statement:
 * the client's counter, then the (account, client) counter only if the client had room, then the
 * account's counter only if both had room. Concurrent attempts queue on the counters' rows, so
 * no more than the limits ever reach the password check, however many arrive at once. An attempt
 * refused by the (account, client) limit hands its client place back, so a client that keeps
 * knocking on one account is not also counted against the others.
 */
export async function reserveSignInAttempt(
  db: DbTx,
  keys: SignInKeys,
  rules: SignInThrottleRules = SIGN_IN_THROTTLE,
): Promise<SignInReservation> {
  const [row] = await db.$queryRaw<Array<{ client: number | null; accountClient: number | null; account: number | null }>>`
    WITH ${bump("client_bump", keys.client, rules.perClient, rules.windowSeconds)},
      ${bump("pair_bump", keys.accountClient, rules.perAccountClient, rules.windowSeconds, "client_bump")},
      ${bump("account_bump", keys.account, null, rules.windowSeconds, "pair_bump")}
    SELECT (SELECT count FROM client_bump) AS client, (SELECT count FROM pair_bump) AS "accountClient",
      (SELECT count FROM account_bump) AS account`;
  if (row.client !== null && row.accountClient === null) await giveBack(db, keys.client);
  if (row.account === null) return { ok: false };
  return { ok: true, delayMs: signInDelayMs(row.account, rules) };
}

/**
 * Settles a reserved attempt. A failure stays counted. A success proves the person knows the
 * password: the account's and this (account, client)'s failures are forgotten, and the client
 * gets its place back — but keeps its failures on other accounts (signing in to one's own
 * account must not reset a client's count of guesses at others).
 */
export async function settleSignInAttempt(db: DbTx, keys: SignInKeys, outcome: "succeeded" | "failed"): Promise<void> {
  if (outcome === "failed") return;
  await db.$executeRaw`DELETE FROM "RateLimitBucket" WHERE key IN (${keys.account}, ${keys.accountClient})`;
  await giveBack(db, keys.client);
}

async function giveBack(db: DbTx, key: string): Promise<void> {
  await db.$executeRaw`UPDATE "RateLimitBucket" SET count = greatest(count - 1, 0) WHERE key = ${key}`;
}

/**
 * A plain attempt limit for one key (e.g. current-password checks on the account page): takes a
 * place if there is room, in one conditional upsert. `forgetAttempts` clears it after a success.
 */
export async function reserveAttempt(db: DbTx, key: string, rule: { limit: number; windowSeconds: number }): Promise<boolean> {
  const rows = await db.$queryRaw<Array<{ count: number }>>`
    WITH ${bump("bumped", key, rule.limit, rule.windowSeconds)} SELECT count FROM bumped`;
  return rows.length > 0;
}

export async function forgetAttempts(db: DbTx, key: string): Promise<void> {
  await db.$executeRaw`DELETE FROM "RateLimitBucket" WHERE key = ${key}`;
}
