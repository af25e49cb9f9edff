import { cookies } from "next/headers";
import { switchTenant } from "@/lib/auth/switch-tenant";
import { getDb } from "@/lib/db/client";
import { getActingMember, TENANT_COOKIE, tenantCookieOptions } from "@/lib/server/acting-member";

/** Relative redirects: behind a proxy, request.url's host is not necessarily the one the browser used. */
function redirectTo(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location } });
}

/**
 * A navigation another site started (a link, form or redirect from elsewhere). Browsers say so in
 * Sec-Fetch-Site; one the person typed or bookmarked is `none`, a link inside the console
 * `same-origin`. Programs and old browsers send nothing and are treated as typed.
 */
function startedByAnotherSite(request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  return site === "cross-site" || site === "same-site";
}

/**
 * `/t/<slug>`: open the console in that organisation — only if you are a member of it. A link
 * from another site does not switch by itself: it lands on a page that asks first.
 */
export async function GET(request: Request, { params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const actor = await getActingMember();
  if (!actor.ok && actor.reason === "signed_out") {
    return redirectTo(`/signin?callbackUrl=${encodeURIComponent(`/t/${slug}`)}`);
  }
  const target = actor.ok ? actor.member.memberships.find((m) => m.slug === slug) : undefined;
  if (!actor.ok || !target) {
    return new Response("403 · You are not a member of that organisation.", {
      status: 403,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  }
  if (startedByAnotherSite(request)) {
    return redirectTo(target.tenantId === actor.member.tenant.id ? "/" : `/t/${encodeURIComponent(slug)}/confirm`);
  }
  // Audited before the cookie changes (lib/auth/switch-tenant.ts).
  await switchTenant(getDb(), actor.member, { tenantId: target.tenantId }, "link");
  (await cookies()).set(TENANT_COOKIE, target.tenantId, tenantCookieOptions());
  return redirectTo("/");
}
