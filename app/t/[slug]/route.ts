import { cookies } from "next/headers";
import { getActingMember, TENANT_COOKIE, tenantCookieOptions } from "@/lib/server/acting-member";

/** Relative redirects: behind a proxy, request.url's host is not necessarily the one the browser used. */
function redirectTo(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location } });
}

/** `/t/<slug>`: open the console in that organisation — only if you are a member of it. */
export async function GET(_request: Request, { params }: { params: Promise<{ slug: string }> }) {
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
  if (target.tenantId === actor.member.tenant.id) return redirectTo("/");
  (await cookies()).set(TENANT_COOKIE, target.tenantId, tenantCookieOptions());
  return redirectTo("/");
}
