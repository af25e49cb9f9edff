import { describe, expect, it } from "vitest";
import { TEST_PASSWORD } from "@/tests/factories";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { signInWithPassword, SIGN_IN_MESSAGES, type SignInOptions } from "@/lib/auth/sign-in";
import { SIGN_IN_THROTTLE, signInDelayMs, type SignInThrottleRules } from "@/lib/auth/sign-in-throttle";

const t = setUpTestDatabase();
const tenant = setUpTestTenant(t);

/** The production limits with waits that are recorded instead of slept. */
function observed(rules: SignInThrottleRules = SIGN_IN_THROTTLE): SignInOptions & { waits: number[] } {
  const waits: number[] = [];
  return { rules, waits, sleep: async (ms) => void waits.push(ms) };
}

/** Attempts that reached the password check (every one of them is recorded, throttled ones are not). */
async function checkedAttempts(email: string): Promise<number> {
  return t.db.signInAttempt.count({ where: { email: email.toLowerCase() } });
}

let clients = 0;
/** A client address no other test uses. */
const newClient = () => `198.51.100.${++clients}`;

// Every attempt that reaches the password check costs a real scrypt hash: generous on a busy machine.
describe("signInWithPassword throttling", { timeout: 120_000 }, () => {
  it("30 parallel wrong guesses on one account from one client: only the per-(account, client) limit reach the password check", async () => {
    const email = tenant.users.reviewer.email;
    const client = newClient();
    const options = observed();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => signInWithPassword(t.db, { email, password: `guess-${i}`, clientAddress: client }, options)),
    );
    const reasons = results.map((r) => (r.ok ? "ok" : r.reason));
    expect(reasons.filter((r) => r === "invalid")).toHaveLength(SIGN_IN_THROTTLE.perAccountClient);
    expect(reasons.filter((r) => r === "throttled")).toHaveLength(30 - SIGN_IN_THROTTLE.perAccountClient);
    expect(await checkedAttempts(email)).toBe(SIGN_IN_THROTTLE.perAccountClient);
    // The right password from that client now waits out the window too.
    expect(await signInWithPassword(t.db, { email, password: TEST_PASSWORD, clientAddress: client }, options)).toEqual({ ok: false, reason: "throttled" });
  });

  it("30 different emails from one client: throttled after the per-client limit, even in parallel", async () => {
    const client = newClient();
    const emails = Array.from({ length: 30 }, (_, i) => `spray-${i}-${client}@nowhere.test`);
    const results = await Promise.all(
      emails.map((email) => signInWithPassword(t.db, { email, password: "password123", clientAddress: client }, observed())),
    );
    const reasons = results.map((r) => (r.ok ? "ok" : r.reason));
    expect(reasons.filter((r) => r === "invalid")).toHaveLength(SIGN_IN_THROTTLE.perClient);
    expect(reasons.filter((r) => r === "throttled")).toHaveLength(30 - SIGN_IN_THROTTLE.perClient);
    const checked = await Promise.all(emails.map(checkedAttempts));
    expect(checked.reduce((a, b) => a + b, 0)).toBe(SIGN_IN_THROTTLE.perClient);
    // The client is throttled for real accounts too, while other clients are not.
    expect(await signInWithPassword(t.db, { email: tenant.users.auditor.email, password: TEST_PASSWORD, clientAddress: client }, observed()))
      .toEqual({ ok: false, reason: "throttled" });
    expect(await signInWithPassword(t.db, { email: tenant.users.auditor.email, password: TEST_PASSWORD, clientAddress: newClient() }, observed()))
      .toMatchObject({ ok: true, userId: tenant.users.auditor.id });
  });

  it("a stranger's failures from other clients do not lock the owner out: the owner waits at most the bounded delay", async () => {
    const owner = tenant.users.requester;
    // Strangers on 4 clients use up their per-(account, client) allowance on the owner's account.
    for (let c = 0; c < 4; c++) {
      const stranger = newClient();
      await Promise.all(
        Array.from({ length: SIGN_IN_THROTTLE.perAccountClient + 1 }, (_, i) =>
          signInWithPassword(t.db, { email: owner.email, password: `nope-${i}`, clientAddress: stranger }, observed()),
        ),
      );
    }
    expect(await checkedAttempts(owner.email)).toBe(4 * SIGN_IN_THROTTLE.perAccountClient);

    const options = observed();
    expect(await signInWithPassword(t.db, { email: owner.email, password: TEST_PASSWORD, clientAddress: newClient() }, options))
      .toMatchObject({ ok: true, userId: owner.id });
    expect(options.waits).toEqual([SIGN_IN_THROTTLE.delay.maxMs]);

    // Success forgets the account's failures: the next sign-in does not wait.
    const after = observed();
    expect(await signInWithPassword(t.db, { email: owner.email, password: TEST_PASSWORD, clientAddress: newClient() }, after)).toMatchObject({ ok: true });
    expect(after.waits).toEqual([]);
  });

  it("the progressive delay grows with the account's failures and never passes its ceiling", () => {
    const waits = Array.from({ length: 40 }, (_, i) => signInDelayMs(i + 1));
    expect(waits.slice(0, SIGN_IN_THROTTLE.delay.freeAttempts).every((ms) => ms === 0)).toBe(true);
    expect(waits.slice(SIGN_IN_THROTTLE.delay.freeAttempts, SIGN_IN_THROTTLE.delay.freeAttempts + 3)).toEqual([500, 1000, 2000]);
    expect(Math.max(...waits)).toBe(SIGN_IN_THROTTLE.delay.maxMs);
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThanOrEqual(waits[i - 1]);
  });

  it("signing in to one's own account does not reset the client's count of guesses at other accounts", async () => {
    const client = newClient();
    const guesses = (n: number, from: number) =>
      Promise.all(Array.from({ length: n }, (_, i) =>
        signInWithPassword(t.db, { email: `other-${from + i}-${client}@nowhere.test`, password: "password123", clientAddress: client }, observed())));
    await guesses(SIGN_IN_THROTTLE.perClient - 1, 0);
    expect(await signInWithPassword(t.db, { email: tenant.users.admin.email, password: TEST_PASSWORD, clientAddress: client }, observed())).toMatchObject({ ok: true });
    const more = await guesses(3, 100);
    expect(more.map((r) => (r.ok ? "ok" : r.reason)).sort()).toEqual(["invalid", "throttled", "throttled"]);
  });

  it("an unknown email is answered and throttled exactly like a known one", async () => {
    const client = newClient();
    const known = tenant.users.reviewer2.email;
    const unknown = `ghost-${client}@nowhere.test`;
    for (let i = 0; i < SIGN_IN_THROTTLE.perAccountClient + 1; i++) {
      const a = await signInWithPassword(t.db, { email: known, password: "wrong-password", clientAddress: client }, observed());
      const b = await signInWithPassword(t.db, { email: unknown, password: "wrong-password", clientAddress: client }, observed());
      expect(a).toEqual(b);
    }
    expect(SIGN_IN_MESSAGES.throttled).toMatch(/^Too many failed attempts\. Wait \d+ minutes and try again\.$/);
  });

  it("sign-ins whose client address is unknown share one client's limits instead of escaping them", async () => {
    const results = await Promise.all(Array.from({ length: SIGN_IN_THROTTLE.perClient + 2 }, (_, i) =>
      signInWithPassword(t.db, { email: `anon-${i}@nowhere.test`, password: "password123", clientAddress: null }, observed())));
    expect(results.filter((r) => !r.ok && r.reason === "throttled")).toHaveLength(2);
  });
});
