import { AppError } from "@/lib/errors";
import { readEnv } from "@/lib/env";

/** The names of this machine's loopback interface: a console configured at one is reached at all of them. */
const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

/**
 * The origins a console with `publicUrl` (NEXTAUTH_URL) and `extra` (COUNTERSIGN_PUBLIC_ORIGINS)
 * answers on, the public URL first. A loopback origin also counts under the other loopback names at
 * the same scheme and port (only this machine reaches them, on the same listener). `host` counts
 * only when nothing is configured (a bare `next dev`).
 */
export function consoleOrigins(config: { publicUrl?: string; extra?: readonly string[]; host?: string | null }): string[] {
  const configured = [...(config.publicUrl ? [new URL(config.publicUrl).origin] : []), ...(config.extra ?? []).map((origin) => new URL(origin).origin)];
  if (configured.length === 0 && config.host) configured.push(`http://${config.host}`, `https://${config.host}`);
  const origins = new Set<string>(configured);
  for (const origin of configured) {
    const url = new URL(origin);
    if (!LOOPBACK_HOSTS.includes(url.hostname)) continue;
    for (const alias of LOOPBACK_HOSTS) origins.add(`${url.protocol}//${alias}${url.port ? `:${url.port}` : ""}`);
  }
  return [...origins];
}

/**
 * The origins this console answers on: NEXTAUTH_URL's, COUNTERSIGN_PUBLIC_ORIGINS' and their
 * loopback aliases. A forwarded host never is: behind a proxy, set NEXTAUTH_URL to the public URL.
 */
export function publicOrigins(headers: Headers): Set<string> {
  return new Set(consoleOrigins({ publicUrl: readEnv("NEXTAUTH_URL"), extra: readEnv("COUNTERSIGN_PUBLIC_ORIGINS"), host: headers.get("host") }));
}

/**
 * Refuses a request a browser sent for another site: `Sec-Fetch-Site` cross-site or same-site, or
 * a foreign `Origin`. A cookie-authenticated state-changing request must carry an Origin; agents'
 * bearer keys are never attached by a browser, so they may send neither header.
 */
export function assertSameOrigin(headers: Headers, options: { cookieAuthenticated: boolean; stateChanging: boolean }): void {
  const site = headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") {
    throw new AppError("cross_site_request", "Cross-site requests are refused.", 403);
  }
  const origin = headers.get("origin");
  if (origin) {
    const ours = publicOrigins(headers);
    if (!ours.has(origin)) {
      const [home] = ours;
      throw new AppError("cross_site_request", `Requests from another origin are refused; open the console at its own address${home ? ` (${home})` : ""}.`, 403);
    }
    return;
  }
  if (options.cookieAuthenticated && options.stateChanging) {
    throw new AppError("origin_required", "This request did not say which page sent it (no Origin header); use the console's own pages.", 403);
  }
}
