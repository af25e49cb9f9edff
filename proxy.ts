import { getToken } from "next-auth/jwt";
import { NextResponse, type NextRequest } from "next/server";
import { readEnv } from "@/lib/env";

/**
 * Redirects signed-out visitors of console pages to the sign-in page. It decides nothing else:
 * every page, action and route handler checks the member and roles from the database itself.
 */
export async function proxy(request: NextRequest) {
  const token = await getToken({ req: request, secret: readEnv("NEXTAUTH_SECRET") });
  if (token?.sub) return NextResponse.next();
  const url = new URL("/signin", request.url);
  url.searchParams.set("callbackUrl", request.nextUrl.pathname + request.nextUrl.search);
  return NextResponse.redirect(url);
}

export const config = {
  matcher: ["/", "/tasks/:path*", "/queue/:path*", "/actions/:path*", "/audit/:path*", "/admin/:path*", "/account/:path*"],
};
