import { describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { authOptions } from "@/lib/auth/auth-options";
import { memberForOidcProfile } from "@/lib/auth/oidc-member";

const t = setUpTestDatabase({ appClient: true });
const tenant = setUpTestTenant(t);

const oidcSignIn = (profile: Record<string, unknown>) =>
  authOptions.callbacks!.signIn!({
    user: { id: String(profile.sub) },
    account: { provider: "oidc", type: "oauth", providerAccountId: String(profile.sub) },
    profile: profile as { sub: string },
  });

describe("OIDC sign-in matches a member by email only when the provider verified it", () => {
  it("email_verified: true signs the member in", async () => {
    const email = tenant.users.reviewer.email.toUpperCase();
    expect(await oidcSignIn({ sub: "s1", email, email_verified: true })).toBe(true);
    expect(await memberForOidcProfile(t.db, { sub: "s1", email, email_verified: true })).toEqual({ ok: true, userId: tenant.users.reviewer.id });
  });

  it.each([
    ["missing", { sub: "s2" }],
    ["false", { sub: "s3", email_verified: false }],
    ["the string \"true\"", { sub: "s4", email_verified: "true" }],
    ["1", { sub: "s5", email_verified: 1 }],
  ])("email_verified %s matches no one", async (_what, claims) => {
    const profile = { email: tenant.users.reviewer.email, ...claims };
    expect(await oidcSignIn(profile)).toBe("/signin?error=unverified_email");
    expect(await memberForOidcProfile(t.db, profile)).toEqual({ ok: false, reason: "unverified_email" });
  });

  it("a verified email with no membership, or of a disabled user, is refused", async () => {
    expect(await oidcSignIn({ sub: "s6", email: "stranger@nowhere.test", email_verified: true })).toBe("/signin?error=no_membership");
    await t.db.user.update({ where: { id: tenant.users.auditor.id }, data: { disabledAt: new Date() } });
    expect(await oidcSignIn({ sub: "s7", email: tenant.users.auditor.email, email_verified: true })).toBe("/signin?error=no_membership");
  });
});
