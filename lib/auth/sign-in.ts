import type { DbTx } from "@/lib/db/client";
import { clientKeyFor } from "@/lib/auth/client-address";
import { burnPasswordCheck, verifyPassword } from "@/lib/auth/password";
import {
  reserveSignInAttempt,
  settleSignInAttempt,
  SIGN_IN_THROTTLE,
  SIGN_IN_WINDOW_MINUTES,
  signInKeys,
  type SignInThrottleRules,
} from "@/lib/auth/sign-in-throttle";

export type SignInResult =
  | { ok: true; userId: string }
  | { ok: false; reason: "invalid" | "throttled" | "no_membership" | "unverified_email" };

/**
 * Messages shown to the person, one line each, saying what to do. None says whether an email has
 * an account: an unknown email is "invalid" and is throttled exactly like a known one.
 */
export const SIGN_IN_MESSAGES: Record<Exclude<SignInResult, { ok: true }>["reason"], string> = {
  invalid: "That email and password do not match an account.",
  throttled: `Too many failed attempts. Wait ${SIGN_IN_WINDOW_MINUTES} minutes and try again.`,
  no_membership: "Your account is not a member of any organisation. Ask an administrator for access.",
  unverified_email: "Your single sign-on account has no verified email. Verify it with your provider, then try again.",
};

export type SignInOptions = {
  rules?: SignInThrottleRules;
  /** How the progressive delay waits (tests observe it). */
  sleep?: (ms: number) => Promise<void>;
};

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Checks an email and password. The attempt first takes its place in the throttle's counters
 * (lib/auth/sign-in-throttle.ts), so concurrent guesses cannot all reach the password check; a
 * refused attempt is answered without checking the password at all.
 */
export async function signInWithPassword(
  db: DbTx,
  input: { email: string; password: string; clientAddress: string | null },
  options: SignInOptions = {},
): Promise<SignInResult> {
  const email = input.email.trim().toLowerCase();
  const keys = signInKeys(email, clientKeyFor(input.clientAddress));
  const reservation = await reserveSignInAttempt(db, keys, options.rules ?? SIGN_IN_THROTTLE);
  if (!reservation.ok) return { ok: false, reason: "throttled" };
  if (reservation.delayMs > 0) await (options.sleep ?? wait)(reservation.delayMs);

  const user = await db.user.findUnique({
    where: { email },
    select: { id: true, passwordHash: true, disabledAt: true, memberships: { select: { id: true } } },
  });
  const valid = user?.passwordHash && !user.disabledAt
    ? await verifyPassword(input.password, user.passwordHash)
    : (await burnPasswordCheck(input.password), false);

  await db.signInAttempt.create({ data: { email, ip: input.clientAddress, succeeded: Boolean(valid) } });
  await settleSignInAttempt(db, keys, valid ? "succeeded" : "failed");
  if (!valid || !user) return { ok: false, reason: "invalid" };
  if (user.memberships.length === 0) return { ok: false, reason: "no_membership" };
  return { ok: true, userId: user.id };
}
