import NextAuth from "next-auth";
import { getToken } from "next-auth/jwt";
import { NextResponse, type NextRequest } from "next/server";
import { authOptions } from "@/lib/auth/auth-options";
import { sessionIsLive } from "@/lib/auth/session-is-live";
import { getDb } from "@/lib/db/client";
import { readEnv } from "@/lib/env";

const handler = NextAuth(authOptions);

type NextAuthContext = { params: Promise<{ nextauth: string[] }> };

const SESSION_PATH = "/api/auth/session";
const SESSION_COOKIE = /^(?:__Secure-)?next-auth\.session-token(?:\.\d+)?$/;

/**
 * next-auth answers its session endpoint from the cookie alone; the console's Session row decides
 * whether the cookie still counts (signed out, ended from another session, a password change,
 * expired). When it does not, the answer is next-auth's own for no session: `{}`.
 */
async function route(request: NextRequest, context: NextAuthContext): Promise<Response> {
  if (request.nextUrl.pathname === SESSION_PATH) {
    const token = await getToken({ req: request, secret: readEnv("NEXTAUTH_SECRET") });
    if (token && !(token.sub && token.sid && (await sessionIsLive(getDb(), { userId: token.sub, sessionId: token.sid })))) {
      return noSession(request);
    }
  }
  return handler(request, context);
}

/** `{}` with next-auth's headers, and the cookie of the ended session cleared. */
function noSession(request: NextRequest): Response {
  const response = NextResponse.json({}, { headers: { "Cache-Control": "private, no-cache, no-store", Pragma: "no-cache", Expires: "0" } });
  for (const { name } of request.cookies.getAll()) {
    if (SESSION_COOKIE.test(name)) response.cookies.set(name, "", { maxAge: 0, path: "/", httpOnly: true, sameSite: "lax", secure: name.startsWith("__Secure-") });
  }
  return response;
}

export { route as GET, route as POST };
