import type { Queryable } from "@/lib/db/sql";
import { countAttempts, forgetAttempts, giveBackAttempt } from "@/lib/db/statements/auth/attempt-counters";

/**
 * How sign-in attempts are limited, never locking an account: a stranger's failures count against
 * their own client and, for the account, only as a capped delay (docs/DESIGN.md, "Sign-in:
 * throttled without a lockout, and never unaudited").
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
 * Takes this attempt's place in every counter before the password is checked, in one statement:
 * the client's, then (account, client)'s if the client had room, then the account's. Concurrent
 * attempts queue on the rows. A refusal by the (account, client) limit gives the client place back.
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
 * Settles a reserved attempt. A failure stays counted; a success forgets the account's and this
 * (account, client)'s failures and gives the client its place back, keeping its guesses elsewhere.
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
