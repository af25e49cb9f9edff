import type { DbTx } from "@/lib/db/client";
import type { Role } from "@/lib/generated/prisma/enums";

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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Row = {
  sessionId: string;
  userId: string;
  email: string;
  name: string;
  memberships: Array<{ tenantId: string; slug: string; name: string; domains: string[]; roles: Role[] }>;
};

/**
 * Loads the acting member for a signed-in session, in one statement: the session must exist,
 * belong to the user, be neither ended nor expired (database clock), and the user not disabled —
 * otherwise the person is signed out. The same statement notes when the session was last seen
 * (at most once a minute).
 *
 * `preferredTenantId` (the tenant cookie) is a preference: a tenant the user does not belong to
 * (any more) falls back to the first membership by tenant name, so a stale cookie never strands
 * anyone; it cannot reach another tenant, because only the user's own memberships are candidates.
 */
export async function loadActingMember(
  db: DbTx,
  session: SessionRef,
  preferredTenantId?: string | null,
): Promise<ActingMemberResult> {
  if (!UUID.test(session.userId) || !UUID.test(session.sessionId)) return { ok: false, reason: "signed_out" };
  const [row] = await db.$queryRaw<Row[]>`
    WITH live AS (
      SELECT s.id AS "sessionId", u.id AS "userId", u.email, u.name
      FROM "Session" s JOIN "User" u ON u.id = s."userId"
      WHERE s.id = ${session.sessionId}::uuid AND s."userId" = ${session.userId}::uuid
        AND s."revokedAt" IS NULL AND s."expiresAt" > now() AND u."disabledAt" IS NULL
    ), seen AS (
      UPDATE "Session" s SET "lastSeenAt" = now() FROM live
      WHERE s.id = live."sessionId" AND s."revokedAt" IS NULL AND s."lastSeenAt" < now() - interval '1 minute'
    )
    SELECT live."sessionId"::text AS "sessionId", live."userId"::text AS "userId", live.email, live.name,
      coalesce((
        SELECT json_agg(json_build_object('tenantId', t.id, 'slug', t.slug, 'name', t.name, 'domains', t.domains, 'roles', m.roles)
          ORDER BY t.name, t.id)
        FROM "Membership" m JOIN "Tenant" t ON t.id = m."tenantId"
        WHERE m."userId" = live."userId" AND cardinality(m.roles) > 0
      ), '[]'::json) AS memberships
    FROM live`;
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
