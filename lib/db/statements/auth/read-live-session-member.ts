import { Prisma } from "@/lib/generated/prisma/client";
import { sessionRowIsLiveSql } from "@/lib/db/statements/auth/session-rules";
import type { Role } from "@/lib/generated/prisma/enums";
import { query, type Queryable } from "@/lib/db/sql";

export type LiveSessionMember = {
  sessionId: string;
  userId: string;
  email: string;
  name: string;
  /** The user's memberships that hold at least one role, by tenant name. */
  memberships: Array<{ tenantId: string; slug: string; name: string; domains: string[]; roles: Role[] }>;
};

/**
 * The user behind a session and their memberships — only if the session is live: it exists,
 * belongs to the user, has not ended and has not expired by the database clock, and the user is
 * not disabled. Null otherwise. Moves the session's `lastSeenAt` forward, at most once a minute.
 */
export async function readLiveSessionMember(q: Queryable, input: { userId: string; sessionId: string }): Promise<LiveSessionMember | null> {
  const [row] = await query<LiveSessionMember>(q, Prisma.sql`
    WITH live AS (
      SELECT s.id AS "sessionId", u.id AS "userId", u.email, u.name
      FROM "Session" s JOIN "User" u ON u.id = s."userId"
      WHERE s.id = ${input.sessionId}::uuid AND s."userId" = ${input.userId}::uuid
        AND ${sessionRowIsLiveSql(Prisma.sql`s`)} AND u."disabledAt" IS NULL
    ), seen AS (
      UPDATE "Session" s SET "lastSeenAt" = now()
      WHERE s.id IN (
        -- A hint: skipped while an act of this session holds its row (lock-acting-membership.ts), rather than waited for.
        SELECT seen_s.id FROM "Session" seen_s JOIN live ON seen_s.id = live."sessionId"
        WHERE seen_s."revokedAt" IS NULL AND seen_s."lastSeenAt" < now() - interval '1 minute'
        FOR NO KEY UPDATE OF seen_s SKIP LOCKED)
    )
    SELECT live."sessionId"::text AS "sessionId", live."userId"::text AS "userId", live.email, live.name,
      coalesce((
        SELECT json_agg(json_build_object('tenantId', t.id, 'slug', t.slug, 'name', t.name, 'domains', t.domains, 'roles', m.roles)
          ORDER BY t.name, t.id)
        FROM "Membership" m JOIN "Tenant" t ON t.id = m."tenantId"
        WHERE m."userId" = live."userId" AND cardinality(m.roles) > 0
      ), '[]'::json) AS memberships
    FROM live`);
  return row ?? null;
}
