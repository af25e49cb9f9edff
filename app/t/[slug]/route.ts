import { getServerSession } from "next-auth";
import { NextResponse } from "next/server";
import { authOptions } from "@/lib/auth/auth-options";
import { loadActingMember } from "@/lib/auth/acting-member";
import { getDb } from "@/lib/db/client";
import { TENANT_COOKIE } from "@/lib/server/acting-member";

/** `/t/<slug>`: open the console in that organisation — only if you are a member of it. */
export async function GET(request: Request, { params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const userId = (await getServerSession(authOptions))?.user?.id;
  if (!userId) {
    return NextResponse.redirect(new URL(`/signin?callbackUrl=${encodeURIComponent(`/t/${slug}`)}`, request.url));
  }
  const result = await loadActingMember(getDb(), userId, { slug });
  if (!result.ok) {
    return new NextResponse("403 · You are not a member of that organisation.", {
      status: 403,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  }
  const response = NextResponse.redirect(new URL("/", request.url));
  response.cookies.set(TENANT_COOKIE, result.member.tenant.id, { httpOnly: true, sameSite: "lax", path: "/" });
  return response;
}
