import { AppError } from "@/lib/errors";

/** The origins this app answers on: the request's own, plus the configured public URL. */
function ownOrigins(request: Request): Set<string> {
  const origins = new Set<string>([new URL(request.url).origin]);
  for (const configured of [process.env.NEXTAUTH_URL, process.env.COUNTERSIGN_PUBLIC_URL]) {
    if (!configured) continue;
    try {
      origins.add(new URL(configured).origin);
    } catch {
      // A malformed setting adds nothing.
    }
  }
  return origins;
}

/**
 * State-changing handlers refuse requests a browser sends on another site's behalf: a foreign
 * `Origin`, or `Sec-Fetch-Site: cross-site | same-site`. Programs that send neither header
 * (agents, curl) pass; they must still authenticate.
 */
export function assertNotCrossSite(request: Request): void {
  const site = request.headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") {
    throw new AppError("cross_site_request", "Cross-site requests are refused.", 403);
  }
  const origin = request.headers.get("origin");
  if (origin && !ownOrigins(request).has(origin)) {
    throw new AppError("cross_site_request", "Requests from another origin are refused.", 403);
  }
}
