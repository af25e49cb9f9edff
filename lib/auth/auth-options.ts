import type { NextAuthOptions, User } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import type { OAuthConfig } from "next-auth/providers/oauth";
import { headers } from "next/headers";
import { z } from "zod";
import { getDb } from "@/lib/db/client";
import { readEnv } from "@/lib/env";
import { clientAddressFromHeaders } from "@/lib/auth/client-address";
import { endSession } from "@/lib/auth/end-sessions";
import { memberForOidcProfile } from "@/lib/auth/oidc-member";
import { safeCallbackPath } from "@/lib/auth/safe-callback-path";
import { signInWithPassword } from "@/lib/auth/sign-in";
import { SESSION_MAX_AGE_SECONDS, startSession, type SessionMethod } from "@/lib/auth/start-session";

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

/** Starts the Session row a new sign-in's cookie will carry, noting where it came from. */
async function startSessionForThisRequest(userId: string, method: SessionMethod): Promise<string> {
  const request = await headers();
  const { id } = await startSession(getDb(), {
    userId,
    method,
    clientAddress: clientAddressFromHeaders(request),
    userAgent: request.get("user-agent"),
  });
  return id;
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
      const result = await memberForOidcProfile(getDb(), profile);
      return result.ok ? true : `/signin?error=${result.reason}`;
    },
    // The token carries the user id and the session's id, nothing else: roles and tenants are
    // read per request, and the session row decides whether the token still counts.
    async jwt({ token, user, account, profile }) {
      if (account?.provider === "oidc") {
        const result = await memberForOidcProfile(getDb(), profile);
        return result.ok ? { sub: result.userId, sid: await startSessionForThisRequest(result.userId, "oidc") } : {};
      }
      if (user) return { sub: user.id, sid: await startSessionForThisRequest(user.id, "credentials") };
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
    // POST /api/auth/signout: the cookie is cleared by next-auth, the session ended here.
    async signOut({ token }) {
      if (token?.sid) await endSession(getDb(), token.sid, "signed_out");
    },
  },
};
