import type { DbTx } from "@/lib/db/client";
import { burnPasswordCheck, verifyPassword } from "@/lib/auth/password";

/** Failed attempts allowed per email within the window before sign-in is refused for a while. */
export const SIGN_IN_MAX_FAILURES = 5;
export const SIGN_IN_WINDOW_MINUTES = 15;

export type SignInResult =
  | { ok: true; userId: string }
  | { ok: false; reason: "invalid" | "throttled" | "no_membership" };

/** Messages shown to the person; "invalid" never says whether the email exists. */
export const SIGN_IN_MESSAGES: Record<Exclude<SignInResult, { ok: true }>["reason"], string> = {
  invalid: "That email and password do not match an account.",
  throttled: `Too many failed attempts. Wait ${SIGN_IN_WINDOW_MINUTES} minutes and try again.`,
  no_membership: "Your account is not a member of any organisation. Ask an administrator for access.",
};

export async function signInWithPassword(
  db: DbTx,
  input: { email: string; password: string; ip?: string | null },
): Promise<SignInResult> {
  const email = input.email.trim().toLowerCase();
  const [{ failures }] = await db.$queryRaw<Array<{ failures: number }>>`
    SELECT count(*)::int AS failures FROM "SignInAttempt"
    WHERE email = ${email} AND succeeded = false
      AND "createdAt" > now() - make_interval(mins => ${SIGN_IN_WINDOW_MINUTES})`;
  if (failures >= SIGN_IN_MAX_FAILURES) {
    await burnPasswordCheck(input.password);
    return { ok: false, reason: "throttled" };
  }

  const user = await db.user.findUnique({
    where: { email },
    select: { id: true, passwordHash: true, disabledAt: true, memberships: { select: { id: true } } },
  });
  const valid = user?.passwordHash && !user.disabledAt
    ? await verifyPassword(input.password, user.passwordHash)
    : (await burnPasswordCheck(input.password), false);

  await db.signInAttempt.create({ data: { email, ip: input.ip ?? null, succeeded: Boolean(valid) } });
  if (!valid || !user) return { ok: false, reason: "invalid" };
  if (user.memberships.length === 0) return { ok: false, reason: "no_membership" };
  return { ok: true, userId: user.id };
}
