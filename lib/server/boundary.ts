import "server-only";
import { headers } from "next/headers";
import { z } from "zod";
import type { ActingMember } from "@/lib/auth/acting-member";
import { hasPermission, type Permission } from "@/lib/roles/permissions";
import type { AuditActor } from "@/lib/audit/append-audit-event";
import { auditRequestRefusal } from "@/lib/audit/audit-request-refusal";
import { AppError, describeInvalid, toPublicError, type PublicError } from "@/lib/errors";
import { getActingMember } from "@/lib/server/acting-member";
import { assertSameOrigin } from "@/lib/net/request-origin";

/**
 * The one boundary every request that acts goes through (server actions, console route handlers,
 * the agent API's apiRoute, the MCP endpoint): refuse cross-site requests, authenticate, authorize
 * from ROLE_PERMISSIONS, validate input strictly, run the domain function, and audit what it did
 * not record itself (lib/audit/audit-request-refusal.ts). Nothing is decided in middleware.
 */

export function memberAuditActorOf(member: ActingMember): AuditActor {
  return { type: "user", id: member.user.id, label: member.user.email };
}

/** The signed-in member, or 401/403 in words. */
async function authenticatedMember(): Promise<{ member: ActingMember | null; error: AppError | null }> {
  const result = await getActingMember();
  if (result.ok) return { member: result.member, error: null };
  if (result.reason === "signed_out") {
    return { member: null, error: new AppError("unauthenticated", "Sign in to continue.", 401) };
  }
  return { member: null, error: new AppError("forbidden", "You are not a member of this organisation.", 403) };
}

function authorize(member: ActingMember, permission: Permission | undefined): void {
  if (permission && !hasPermission(member.roles, permission)) {
    throw new AppError("forbidden", "Your roles in this organisation do not allow this.", 403);
  }
}

export type ActionResult<T> = { ok: true; data: T } | { ok: false; error: PublicError };

/**
 * Server actions: same-origin only (a server action is a cookie-authenticated POST), the member
 * from the database, the permission, the input parsed strictly (unknown keys refused), then the
 * domain function. Errors come back as words a person understands; refusals are audited.
 */
export function memberAction<S extends z.ZodType, T>(
  options: { name: string; permission?: Permission; input: S },
  run: (input: z.infer<S>, member: ActingMember) => Promise<T>,
): (raw: unknown) => Promise<ActionResult<T>> {
  return async (raw) => {
    let member: ActingMember | null = null;
    try {
      const found = await authenticatedMember();
      member = found.member;
      assertSameOrigin(await headers(), { cookieAuthenticated: true, stateChanging: true });
      if (found.error) throw found.error;
      authorize(found.member!, options.permission);
      const parsed = options.input.safeParse(raw);
      if (!parsed.success) throw new AppError("invalid_input", describeInvalid(parsed.error), 400);
      return { ok: true, data: await run(parsed.data, found.member!) };
    } catch (error) {
      if (member) {
        await auditRequestRefusal({ tenantId: member.tenant.id, actor: memberAuditActorOf(member), surface: "console", operation: options.name, error });
      }
      return { ok: false, error: toPublicError(error, `action ${options.name}`).body };
    }
  };
}

/**
 * Console route handlers: the same, for requests that carry a session cookie. Cross-site requests
 * are refused for every method; a state-changing one must name its origin. JSON errors with a
 * stable code.
 */
export function memberRoute<Ctx>(
  options: { name: string; permission?: Permission },
  handler: (request: Request, member: ActingMember, context: Ctx) => Promise<Response>,
): (request: Request, context: Ctx) => Promise<Response> {
  return async (request, context) => {
    let member: ActingMember | null = null;
    try {
      const found = await authenticatedMember();
      member = found.member;
      assertSameOrigin(request.headers, { cookieAuthenticated: true, stateChanging: !["GET", "HEAD"].includes(request.method) });
      if (found.error) throw found.error;
      authorize(found.member!, options.permission);
      return await handler(request, found.member!, context);
    } catch (error) {
      if (member) {
        await auditRequestRefusal({ tenantId: member.tenant.id, actor: memberAuditActorOf(member), surface: "console", operation: options.name, error });
      }
      const { status, body } = toPublicError(error, `route ${options.name}`);
      return Response.json({ error: body }, { status, headers: { "Cache-Control": "no-store" } });
    }
  };
}
