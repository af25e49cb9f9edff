import { getServerSession } from "next-auth";
import { authOptions } from "@/lib/auth/auth-options";
import { loadActingMember } from "@/lib/auth/acting-member";
import { getDb } from "@/lib/db/client";
import { TENANT_COOKIE } from "@/lib/server/acting-member";

/** Relative redirects: behind a proxy, request.url's host is not necessarily the one the browser used. */
function redirectTo(location: string, cookie?: string): Response {
  const headers = new Headers({ Location: location });
  if (cookie) headers.append("Set-Cookie", cookie);
  return new Response(null, { status: 303, headers });
}

/** `/t/<slug>`: open the console in that organisation — only if you are a member of it. */
export async function GET(_request: Request, { params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const userId = (await getServerSession(authOptions))?.user?.id;
  if (!userId) return redirectTo(`/signin?callbackUrl=${encodeURIComponent(`/t/${slug}`)}`);
  const result = await loadActingMember(getDb(), userId, { slug });
  if (!result.ok) {
    return new Response("403 · You are not a member of that organisation.", {
      status: 403,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  }
  return redirectTo("/", `${TENANT_COOKIE}=${result.member.tenant.id}; Path=/; HttpOnly; SameSite=Lax`);
}
