import type { Queryable } from "@/lib/db/sql";
import { readLiveSessionMember } from "@/lib/db/statements/auth/read-live-session-member";
import { isUuid } from "@/lib/db/uuid";
import type { Role } from "@/lib/generated/prisma/enums";
import type { Member } from "@/lib/approvals/actors";

export type TenantMembership = { tenantId: string; slug: string; name: string; roles: Role[] };

/** Who is acting, in which tenant, with which roles, in which session — always read from the database. */
export type ActingMember = {
  user: { id: string; email: string; name: string };
  tenant: { id: string; slug: string; name: string; domains: string[] };
  roles: Role[];
  memberships: TenantMembership[];
  session: { id: string };
};

export type ActingMemberResult =
  | { ok: true; member: ActingMember }
  | { ok: false; reason: "signed_out" | "no_membership" };

/** The signed-in session as the session cookie names it (its contents are never trusted beyond that). */
export type SessionRef = { userId: string; sessionId: string };

/**
 * Loads the acting member for a session in one statement (read-live-session-member.ts); a session
 * not live signs the person out. `preferredTenantId` (the tenant cookie) only picks among the
 * user's own memberships; one they left falls back to the first by tenant name.
 */
export async function loadActingMember(
  db: Queryable,
  session: SessionRef,
  preferredTenantId?: string | null,
): Promise<ActingMemberResult> {
  if (!isUuid(session.userId) || !isUuid(session.sessionId)) return { ok: false, reason: "signed_out" };
  const row = await readLiveSessionMember(db, session);
  if (!row) return { ok: false, reason: "signed_out" };
  const usable = row.memberships;
  if (usable.length === 0) return { ok: false, reason: "no_membership" };

  const chosen = usable.find((m) => m.tenantId === preferredTenantId) ?? usable[0];
  return {
    ok: true,
    member: {
      user: { id: row.userId, email: row.email, name: row.name },
      tenant: { id: chosen.tenantId, slug: chosen.slug, name: chosen.name, domains: chosen.domains },
      roles: chosen.roles,
      memberships: usable.map((m) => ({ tenantId: m.tenantId, slug: m.slug, name: m.name, roles: m.roles })),
      session: { id: row.sessionId },
    },
  };
}

/** The acting member as the domain functions take them: roles from the database, and the session they act in (held while the act runs). */
export function consoleMember(member: ActingMember): Member {
  return { userId: member.user.id, label: member.user.email, roles: member.roles, sessionId: member.session.id };
}
