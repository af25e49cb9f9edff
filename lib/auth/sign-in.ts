import type { Db } from "@/lib/db/client";
import { signInFailureAuditFor, type SignInFailureReason } from "@/lib/auth/audit-sign-in-failure";
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
  /** `passwordHash`: the hash the password was checked against; the session starts only if it is still the account's. */
  | { ok: true; userId: string; passwordHash: string }
  | { ok: false; reason: "invalid" | "throttled" | "no_membership" | "unverified_email" };

/** Why a sign-in was refused, as the sign-in page names it (`?error=`). */
export type SignInRefusal = Exclude<SignInResult, { ok: true }>["reason"] | "unrecorded";

/**
 * Messages shown to the person, one line each, saying what to do. None says whether an email has
 * an account: an unknown email is "invalid" and is throttled exactly like a known one.
 */
export const SIGN_IN_MESSAGES: Record<SignInRefusal, string> = {
  invalid: "That email and password do not match an account.",
  throttled: `Too many failed attempts. Wait ${SIGN_IN_WINDOW_MINUTES} minutes and try again.`,
  no_membership: "Your account is not a member of any organisation. Ask an administrator for access.",
  unverified_email: "Your single sign-on account has no verified email. Verify it with your provider, then try again.",
  // The sign-in could not be recorded in the audit log, so it did not happen (lib/auth/start-signed-in-session.ts).
  unrecorded: "Signing in could not be completed just now. Try again in a minute; if it keeps failing, tell an administrator.",
};

export type SignInOptions = {
  rules?: SignInThrottleRules;
  /** How the progressive delay waits (tests observe it). */
  sleep?: (ms: number) => Promise<void>;
};

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Checks an email and password after the attempt took its place in the throttle (sign-in-throttle.ts);
 * a refused attempt never reaches the password check. Refusals are audited off this path, so the
 * answer takes as long whether or not the email has an account; a success is audited with its
 * session (start-signed-in-session.ts).
 */
export async function signInWithPassword(
  db: Db,
  input: { email: string; password: string; clientAddress: string | null },
  options: SignInOptions = {},
): Promise<SignInResult> {
  const email = input.email.trim().toLowerCase();
  const keys = signInKeys(email, clientKeyFor(input.clientAddress));
  const reservation = await reserveSignInAttempt(db, keys, options.rules ?? SIGN_IN_THROTTLE);
  const audit = signInFailureAuditFor(db);
  if (!reservation.ok) {
    audit.throttled({ email, method: "password", clientAddress: input.clientAddress });
    return { ok: false, reason: "throttled" };
  }
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
  if (!valid || !user) {
    // The person is told "invalid" whatever the cause; the account's auditors see which it was.
    const reason: SignInFailureReason = !user ? "invalid" : user.disabledAt ? "disabled" : !user.passwordHash ? "no_password" : "invalid";
    // Looked up again off this path for unknown emails too, so both take the same work here.
    audit.failed({ email, method: "password", reason, clientAddress: input.clientAddress });
    return { ok: false, reason: "invalid" };
  }
  // No membership, no tenant whose log could hold the refusal.
  if (user.memberships.length === 0) return { ok: false, reason: "no_membership" };
  return { ok: true, userId: user.id, passwordHash: user.passwordHash! };
}
