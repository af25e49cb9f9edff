import { AppError } from "@/lib/errors";
import { readEnv } from "@/lib/env";

/**
 * The origins this console answers on: NEXTAUTH_URL's (the start command always sets it) and any
 * listed in COUNTERSIGN_PUBLIC_ORIGINS (comma-separated, e.g. a second host name). A forwarded
 * host header is never one of them: behind a proxy, set NEXTAUTH_URL to the public URL. Only when
 * nothing is configured (a bare `next dev`) is the Host the browser connected to used.
 */
export function publicOrigins(headers: Headers): Set<string> {
  const own = readEnv("NEXTAUTH_URL");
  const origins = new Set<string>([...(own ? [new URL(own).origin] : []), ...(readEnv("COUNTERSIGN_PUBLIC_ORIGINS") ?? [])]);
  const host = headers.get("host");
  if (origins.size === 0 && host) {
    origins.add(`http://${host}`);
    origins.add(`https://${host}`);
  }
  return origins;
}

/**
 * Refuses a request a browser sent on another site's behalf: `Sec-Fetch-Site: cross-site` or
 * `same-site`, or an `Origin` that is not one of ours. A request authenticated by a cookie (an
 * ambient credential the browser attaches by itself) must also say where it comes from: a
 * state-changing one without an Origin is refused. Agents authenticate with a bearer key the
 * browser never attaches, so they may send neither header.
 */
export function assertSameOrigin(headers: Headers, options: { cookieAuthenticated: boolean; stateChanging: boolean }): void {
  const site = headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") {
    throw new AppError("cross_site_request", "Cross-site requests are refused.", 403);
  }
  const origin = headers.get("origin");
  if (origin) {
    if (!publicOrigins(headers).has(origin)) {
      throw new AppError("cross_site_request", "Requests from another origin are refused; open the console at its own address.", 403);
    }
    return;
  }
  if (options.cookieAuthenticated && options.stateChanging) {
    throw new AppError("origin_required", "This request did not say which page sent it (no Origin header); use the console's own pages.", 403);
  }
}
