import type { Queryable } from "@/lib/db/sql";
import { countAttempts, forgetAttempts, giveBackAttempt } from "@/lib/db/statements/auth/attempt-counters";

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
 * Takes this attempt's place in every counter before the password is checked, in one statement
 * (lib/db/statements/auth/attempt-counters.ts): the client's counter, then the (account, client)
 * counter only if the client had room, then the account's counter only if both had room. Concurrent attempts queue on the counters' rows, so
 * no more than the limits ever reach the password check, however many arrive at once. An attempt
 * refused by the (account, client) limit hands its client place back, so a client that keeps
 * knocking on one account is not also counted against the others.
 */
export async function reserveSignInAttempt(
  db: Queryable,
  keys: SignInKeys,
  rules: SignInThrottleRules = SIGN_IN_THROTTLE,
): Promise<SignInReservation> {
  const [client, accountClient, account] = await countAttempts(db, [
    { key: keys.client, limit: rules.perClient, windowSeconds: rules.windowSeconds },
    { key: keys.accountClient, limit: rules.perAccountClient, windowSeconds: rules.windowSeconds },
    { key: keys.account, limit: null, windowSeconds: rules.windowSeconds },
  ]);
  if (client !== null && accountClient === null) await giveBackAttempt(db, keys.client);
  if (account === null) return { ok: false };
  return { ok: true, delayMs: signInDelayMs(account, rules) };
}

/**
 * Settles a reserved attempt. A failure stays counted. A success proves the person knows the
 * password: the account's and this (account, client)'s failures are forgotten, and the client
 * gets its place back — but keeps its failures on other accounts (signing in to one's own
 * account must not reset a client's count of guesses at others).
 */
export async function settleSignInAttempt(db: Queryable, keys: SignInKeys, outcome: "succeeded" | "failed"): Promise<void> {
  if (outcome === "failed") return;
  await forgetAttempts(db, [keys.account, keys.accountClient]);
  await giveBackAttempt(db, keys.client);
}

/**
 * A plain attempt limit for one key (e.g. current-password checks on the account page): takes a
 * place if there is room. `forgetAttemptsOf` clears it after a success.
 */
export async function reserveAttempt(db: Queryable, key: string, rule: { limit: number; windowSeconds: number }): Promise<boolean> {
  const [count] = await countAttempts(db, [{ key, ...rule }]);
  return count !== null;
}

export async function forgetAttemptsOf(db: Queryable, key: string): Promise<void> {
  await forgetAttempts(db, [key]);
}
