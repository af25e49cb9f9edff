import { getToken } from "next-auth/jwt";
import { NextResponse, type NextRequest } from "next/server";
import { readEnv } from "@/lib/env";
import { newNonce, pageContentSecurityPolicy } from "@/lib/server/security-headers";

// The console's pages that need a session; everything else is public or checks its own caller.
const CONSOLE_PAGE = /^\/(?:(?:tasks|queue|actions|audit|admin|account)(?:\/.*)?)?$/;

/**
 * Sets the Content-Security-Policy of every page (a fresh nonce for each, which Next.js puts on
 * its scripts; see lib/server/security-headers.ts) and redirects signed-out visitors of
 * console pages to the sign-in page. It decides nothing else: every page, action and route
 * handler checks the member and roles from the database itself.
 */
export async function proxy(request: NextRequest) {
  const { pathname } = request.nextUrl;
  const policy = pageContentSecurityPolicy(newNonce(), { dev: process.env.NODE_ENV === "development" } /* Next.js's build mode, not configuration */);
  if (CONSOLE_PAGE.test(pathname)) {
    const token = await getToken({ req: request, secret: readEnv("NEXTAUTH_SECRET") });
    if (!token?.sub) {
      const url = new URL("/signin", request.url);
      url.searchParams.set("callbackUrl", request.nextUrl.pathname + request.nextUrl.search);
      const redirect = NextResponse.redirect(url);
      redirect.headers.set("Content-Security-Policy", policy);
      return redirect;
    }
  }
  // Next.js reads the nonce from the request's policy while rendering (pages render per request).
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("Content-Security-Policy", policy);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", policy);
  return response;
}

export const config = {
  // Everything but build assets (hashed files, never documents) and /api, whose fixed policy
  // next.config.js sets with the other static headers.
  matcher: ["/((?!_next/static|_next/image|favicon.ico|api/).*)"],
};
