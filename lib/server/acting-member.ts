import "server-only";
import { getServerSession } from "next-auth";
import { cookies } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import { cache } from "react";
import { z } from "zod";
import { authOptions } from "@/lib/auth/auth-options";
import { loadActingMember, type ActingMember, type ActingMemberResult } from "@/lib/auth/acting-member";
import { hasPermission, type Permission } from "@/lib/auth/permissions";
import { getDb } from "@/lib/db/client";
import { AppError, toPublicError, type PublicError } from "@/lib/errors";

export const TENANT_COOKIE = "cs_tenant";

/** The tenant cookie only states a preference among the user's own memberships (see loadActingMember). */
export function tenantCookieOptions() {
  return {
    httpOnly: true,
    sameSite: "lax" as const,
    path: "/",
    secure: process.env.NODE_ENV === "production" && process.env.NEXTAUTH_URL?.startsWith("https:"),
  };
}

export type ActorLookup = ActingMemberResult;

/**
 * The one place that answers "who is acting, in which tenant, with which roles" (per request).
 * The session cookie only names a session; loadActingMember checks it is still live in the query
 * that loads the member. The tenant cookie is a preference among the user's own memberships.
 */
export const getActingMember = cache(async (): Promise<ActorLookup> => {
  const session = await getServerSession(authOptions);
  const userId = session?.user?.id;
  const sessionId = session?.sessionId;
  if (!userId || !sessionId) return { ok: false, reason: "signed_out" };
  const preferredTenantId = (await cookies()).get(TENANT_COOKIE)?.value ?? null;
  return loadActingMember(getDb(), { userId, sessionId }, preferredTenantId);
});

/** For pages: redirects the signed-out, answers 403 to everyone else who may not be here. */
export async function requirePageMember(permission?: Permission, returnTo = "/"): Promise<ActingMember> {
  const result = await getActingMember();
  if (!result.ok) {
    if (result.reason === "signed_out") {
      redirect(`/signin?callbackUrl=${encodeURIComponent(returnTo)}`);
    }
    forbidden();
  }
  if (permission && !hasPermission(result.member.roles, permission)) forbidden();
  return result.member;
}

/** The acting member for route handlers and server actions, or an AppError (401/403). */
export async function requireMember(permission?: Permission): Promise<ActingMember> {
  const result = await getActingMember();
  if (!result.ok) {
    if (result.reason === "signed_out") {
      throw new AppError("unauthenticated", "Sign in to continue.", 401);
    }
    throw new AppError("forbidden", "You are not a member of this organisation.", 403);
  }
  if (permission && !hasPermission(result.member.roles, permission)) {
    throw new AppError("forbidden", "Your roles in this organisation do not allow this.", 403);
  }
  return result.member;
}

export type ActionResult<T> = { ok: true; data: T } | { ok: false; error: PublicError };

/**
 * The layered wrapper every server action goes through: parse the input (unknown keys refused),
 * load the acting member from the database, check the permission, run the domain function, map
 * errors to words a person understands.
 */
export function memberAction<S extends z.ZodType, T>(
  options: { name: string; permission?: Permission; input: S },
  run: (input: z.infer<S>, member: ActingMember) => Promise<T>,
): (raw: unknown) => Promise<ActionResult<T>> {
  return async (raw) => {
    try {
      const parsed = options.input.safeParse(raw);
      if (!parsed.success) {
        throw new AppError("invalid_input", z.prettifyError(parsed.error), 400);
      }
      const member = await requireMember(options.permission);
      return { ok: true, data: await run(parsed.data, member) };
    } catch (error) {
      return { ok: false, error: toPublicError(error, `action ${options.name}`).body };
    }
  };
}

/** The same for route handlers: JSON errors with a stable code. */
export function memberRoute<Ctx>(
  options: { name: string; permission?: Permission },
  handler: (request: Request, member: ActingMember, context: Ctx) => Promise<Response>,
): (request: Request, context: Ctx) => Promise<Response> {
  return async (request, context) => {
    try {
      const member = await requireMember(options.permission);
      return await handler(request, member, context);
    } catch (error) {
      const { status, body } = toPublicError(error, `route ${options.name}`);
      return Response.json({ error: body }, { status });
    }
  };
}
