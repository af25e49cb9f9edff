import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { memberStillAskedSql } from "@/lib/db/statements/notifications/reviewer-ask-rules";
import { hasSealAfterCursorSql, sealsAfterCursorSql } from "@/lib/db/statements/audit/audit-cursor-rules";

/**
 * The reviewer-email producer, in one statement: for each tenant whose cursor no other worker
 * holds (`SKIP LOCKED`), the sealed leaves after it (up to `batch`) that ask for reviewers —
 * an action proposed pending or revised (its eligible roles), escalated (the rule's role),
 * warned of its expiry or reopened after its approvals stopped counting (its eligible roles) —
 * become one outbox row per member who may act on it (reviewer-ask-rules.ts: a member of the
 * tenant with such a role, not its requester, not disabled, with no vote on that revision that
 * counts), for an action still pending at that revision. Unique per (action, revision, member,
 * reason, leaf), so a repeated pass adds nothing, while a revision reopened again asks again.
 * Digest members' rows are due at the end of the current period; the cursor moves past every leaf
 * read. Returns the rows added.
 */
export async function enqueueReviewerEmails(
  q: Queryable,
  input: { batch: number; digestSeconds: number; retryWindowSeconds: number },
): Promise<number> {
  const [row] = await query<{ added: number }>(q, Prisma.sql`
    WITH cur AS (
      SELECT c."tenantId", c."cursorSeq" FROM "NotificationCursor" c
      WHERE ${hasSealAfterCursorSql("c")}
      FOR UPDATE OF c SKIP LOCKED
    ),
    leaves AS (
      SELECT cur."tenantId", s.seq, e.type, e.status, e."actionId", e.data
      FROM cur
      ${sealsAfterCursorSql("cur", input.batch)}
      JOIN "AuditEvent" e ON e.id = s."eventId"
    ),
    asks AS (
      SELECT l."tenantId", l.seq, l."actionId", (l.data->>'revision')::int AS revision,
        CASE l.type WHEN 'action.escalated' THEN 'escalated' WHEN 'action.expiry_warned' THEN 'expiry_warning' WHEN 'action.reopened' THEN 'reopened'
          ELSE 'pending' END AS reason,
        CASE WHEN l.type = 'action.escalated' THEN ARRAY[l.data->>'role'] END AS roles
      FROM leaves l
      WHERE l."actionId" IS NOT NULL AND l.data ? 'revision'
        AND ((l.type = 'action.proposed' AND l.status = 'pending') OR l.type IN ('action.revised', 'action.escalated', 'action.expiry_warned', 'action.reopened'))
        -- Reopened twice before this pass: asked once, by the later event.
        AND NOT (l.type = 'action.reopened' AND EXISTS (SELECT 1 FROM leaves later WHERE later."tenantId" = l."tenantId"
          AND later."actionId" = l."actionId" AND later.type = 'action.reopened' AND later.data->>'revision' = l.data->>'revision' AND later.seq > l.seq))
    ),
    targets AS (
      SELECT k."tenantId", k.seq, k."actionId", k.revision, k.reason, m."userId", u.email, m."emailMode"
      FROM asks k
      JOIN "Action" a ON a.id = k."actionId" AND a."tenantId" = k."tenantId" AND a.status = 'pending' AND a."currentRevision" = k.revision
      JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = k.revision
      JOIN "Membership" m ON m."tenantId" = k."tenantId" AND m.roles::text[] && COALESCE(k.roles, r."eligibleRoles"::text[])
      JOIN "User" u ON u.id = m."userId"
      WHERE ${memberStillAskedSql(Prisma.sql`m."userId"`, Prisma.sql`k.roles`)}
    ),
    added AS (
      INSERT INTO "ReviewerEmail" (id, "tenantId", "actionId", revision, "userId", "toAddress", reason, mode, "auditSeq", "nextAttemptAt", "giveUpAt")
      SELECT gen_random_uuid(), t."tenantId", t."actionId", t.revision, t."userId", t.email, t.reason, t."emailMode", t.seq,
        CASE WHEN t."emailMode" = 'digest'
          THEN date_bin(make_interval(secs => ${input.digestSeconds}::int), now(), TIMESTAMPTZ '2000-01-01 00:00:00+00') + make_interval(secs => ${input.digestSeconds}::int)
          ELSE now() END,
        now() + make_interval(secs => ${input.digestSeconds}::int + ${input.retryWindowSeconds}::int)
      FROM targets t
      ON CONFLICT ("actionId", revision, "userId", reason, "auditSeq") DO NOTHING
      RETURNING 1
    ),
    moved AS (
      UPDATE "NotificationCursor" c SET "cursorSeq" = m.seq, "updatedAt" = now()
      FROM (SELECT "tenantId", max(seq) AS seq FROM leaves GROUP BY "tenantId") m
      WHERE c."tenantId" = m."tenantId"
    )
    SELECT count(*)::int AS added FROM added`);
  return row?.added ?? 0;
}
