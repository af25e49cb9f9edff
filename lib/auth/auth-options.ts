import type { NextAuthOptions, User } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import type { OAuthConfig } from "next-auth/providers/oauth";
import { z } from "zod";
import { getDb } from "@/lib/db/client";
import { clientAddressFromHeaders } from "@/lib/auth/client-address";
import { signInWithPassword } from "@/lib/auth/sign-in";

const CredentialsSchema = z.strictObject({
  email: z.string().trim().email().max(320),
  password: z.string().min(1).max(1024),
  // next-auth posts these alongside the fields.
  csrfToken: z.string().optional(),
  callbackUrl: z.string().optional(),
  json: z.string().optional(),
  redirect: z.string().optional(),
});

type OidcProfile = { sub: string; email?: string; email_verified?: boolean; name?: string };

/** Single sign-on, switched on by OIDC_ISSUER + OIDC_CLIENT_ID + OIDC_CLIENT_SECRET. */
function oidcProvider(): OAuthConfig<OidcProfile> | null {
  const issuer = process.env.OIDC_ISSUER;
  const clientId = process.env.OIDC_CLIENT_ID;
  const clientSecret = process.env.OIDC_CLIENT_SECRET;
  if (!issuer || !clientId || !clientSecret) return null;
  return {
    id: "oidc",
    name: process.env.OIDC_NAME ?? "Single sign-on",
    type: "oauth",
    wellKnown: `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`,
    clientId,
    clientSecret,
    idToken: true,
    checks: ["pkce", "state"],
    authorization: { params: { scope: "openid email profile" } },
    profile: (profile) => ({ id: profile.sub, email: profile.email ?? null, name: profile.name ?? profile.email ?? null }),
  };
}

export function oidcEnabled(): boolean {
  return oidcProvider() !== null;
}

/** Maps a verified OIDC email to an existing member; SSO never creates accounts or memberships. */
async function userIdForEmail(email: string | null | undefined): Promise<string | null> {
  if (!email) return null;
  const user = await getDb().user.findFirst({
    where: { email: email.toLowerCase(), disabledAt: null, memberships: { some: {} } },
    select: { id: true },
  });
  return user?.id ?? null;
}

export const authOptions: NextAuthOptions = {
  secret: process.env.NEXTAUTH_SECRET,
  session: { strategy: "jwt", maxAge: 8 * 60 * 60 },
  pages: { signIn: "/signin", signOut: "/signout", error: "/signin" },
  providers: [
    CredentialsProvider({
      id: "credentials",
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials, req): Promise<User | null> {
        const parsed = CredentialsSchema.safeParse(credentials ?? {});
        if (!parsed.success) throw new Error("invalid");
        const result = await signInWithPassword(getDb(), {
          email: parsed.data.email,
          password: parsed.data.password,
          clientAddress: clientAddressFromHeaders(req?.headers),
        });
        if (!result.ok) throw new Error(result.reason);
        return { id: result.userId };
      },
    }),
    ...(oidcProvider() ? [oidcProvider()!] : []),
  ],
  callbacks: {
    async signIn({ account, profile }) {
      if (account?.provider !== "oidc") return true;
      const oidc = profile as OidcProfile | undefined;
      if (oidc?.email_verified === false) return "/signin?error=invalid";
      return (await userIdForEmail(oidc?.email)) ? true : "/signin?error=no_membership";
    },
    // The token carries the user id and nothing else: roles and tenants are read per request.
    async jwt({ token, user, account, profile }) {
      if (account?.provider === "oidc") {
        const id = await userIdForEmail((profile as OidcProfile | undefined)?.email);
        return id ? { sub: id } : {};
      }
      if (user) return { sub: user.id };
      return { sub: token.sub };
    },
    async session({ session, token }) {
      return { expires: session.expires, user: { id: token.sub } } as typeof session;
    },
  },
};
