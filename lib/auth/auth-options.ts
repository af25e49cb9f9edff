import type { NextAuthOptions, User } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import type { OAuthConfig } from "next-auth/providers/oauth";
import { headers } from "next/headers";
import { getDb } from "@/lib/db/client";
import { readEnv } from "@/lib/env";
import { authorizeCredentials } from "@/lib/auth/authorize-credentials";
import { clientAddressFromHeaders } from "@/lib/auth/client-address";
import { auditOidcRefusal, memberForOidcProfile } from "@/lib/auth/oidc-member";
import { safeCallbackPath } from "@/lib/auth/safe-callback-path";
import { signOutSession } from "@/lib/auth/sign-out";
import { startSignedInSession } from "@/lib/auth/start-signed-in-session";
import { SESSION_MAX_AGE_SECONDS } from "@/lib/auth/start-session";

type OidcProfile = { sub: string; email?: string; email_verified?: boolean; name?: string };

/** Single sign-on, switched on by OIDC_ISSUER + OIDC_CLIENT_ID + OIDC_CLIENT_SECRET. */
function oidcProvider(): OAuthConfig<OidcProfile> | null {
  const issuer = readEnv("OIDC_ISSUER");
  const clientId = readEnv("OIDC_CLIENT_ID");
  const clientSecret = readEnv("OIDC_CLIENT_SECRET");
  if (!issuer || !clientId || !clientSecret) return null;
  return {
    id: "oidc",
    name: readEnv("OIDC_NAME") ?? "Single sign-on",
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

/** Where this request came from. Callbacks called outside a request (tests) have no client. */
async function requestClient(): Promise<{ clientAddress: string | null; userAgent: string | null }> {
  let request: Headers;
  try {
    request = await headers();
  } catch {
    return { clientAddress: null, userAgent: null };
  }
  return { clientAddress: clientAddressFromHeaders(request), userAgent: request.get("user-agent") };
}

export const authOptions: NextAuthOptions = {
  secret: readEnv("NEXTAUTH_SECRET"),
  session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
  pages: { signIn: "/signin", signOut: "/signout", error: "/signin" },
  providers: [
    CredentialsProvider({
      id: "credentials",
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      // The session row and its audit events are written here, so a failure to record the
      // sign-in reaches the person as `?error=unrecorded`, not as a server error.
      async authorize(credentials, req): Promise<User | null> {
        const result = await authorizeCredentials(getDb(), credentials, req?.headers);
        if (!result.ok) throw new Error(result.reason);
        return { id: result.userId, sessionId: result.sessionId };
      },
    }),
    ...(oidcProvider() ? [oidcProvider()!] : []),
  ],
  callbacks: {
    async signIn({ account, profile }) {
      if (account?.provider !== "oidc") return true;
      const result = await memberForOidcProfile(getDb(), profile);
      if (result.ok) return true;
      auditOidcRefusal(getDb(), profile, result.reason, (await requestClient()).clientAddress);
      return `/signin?error=${result.reason}`;
    },
    // The token carries the user id and the session's id, nothing else: roles and tenants are
    // read per request, and the session row decides whether the token still counts.
    async jwt({ token, user, account, profile }) {
      if (account?.provider === "oidc") {
        const result = await memberForOidcProfile(getDb(), profile);
        if (!result.ok) return {};
        // Session and `auth.signed_in` in one transaction; if it throws, next-auth refuses the
        // sign-in (`?error=Callback`, shown as `unrecorded`).
        const session = await startSignedInSession(getDb(), { userId: result.userId, method: "oidc", ...(await requestClient()) });
        // Disabled since the provider's profile was matched: no session, so no sign-in.
        if (!session.started) return {};
        return { sub: result.userId, sid: session.sessionId };
      }
      if (user) return user.sessionId ? { sub: user.id, sid: user.sessionId } : {};
      return { sub: token.sub, sid: token.sid };
    },
    async session({ session, token }) {
      return { expires: session.expires, user: { id: token.sub }, sessionId: token.sid };
    },
    // After sign-in and sign-out, only paths on this origin.
    async redirect({ url, baseUrl }) {
      const origin = new URL(baseUrl).origin;
      return `${origin}${safeCallbackPath(url, { origin })}`;
    },
  },
  events: {
    // POST /api/auth/signout: the cookie is cleared by next-auth, the session ended (and the
    // sign-out audited in the user's tenants) here.
    async signOut({ token }) {
      if (token?.sid) await signOutSession(getDb(), { sessionId: token.sid, clientAddress: (await requestClient()).clientAddress });
    },
  },
};
