import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { RiskLevel } from "@/lib/generated/prisma/enums";

export type ReminderKind = "escalated" | "expiry_warned";

export type DueReminder = {
  actionId: string; tenantId: string; tool: string; requesterLabel: string; riskLevel: RiskLevel; revision: number; kind: ReminderKind;
  /** escalated: the rule's role, channel and delay. */
  role: string | null; channel: string | null; afterSeconds: number | null;
  /** expiry_warned: the revision's eligible roles, the warning's lead and the expiry. */
  eligibleRoles: string[]; warnBeforeSeconds: number | null; expiresAt: Date | null;
};

/**
 * Pending actions whose current revision's policy asks for an escalation or expiry warning due at
 * `now` (database clock unless given) that has not fired, read so the console can write (and MAC)
 * their events; `recordActionReminders` fires each at most once, whoever else read it.
 */
export async function readDueReminders(q: Queryable, input: { now: Date | null; limit: number }): Promise<DueReminder[]> {
  return query<DueReminder>(q, Prisma.sql`
    WITH clock AS (SELECT COALESCE(${input.now}::timestamptz, now()) AS now)
    SELECT a.id AS "actionId", a."tenantId", a.tool, a."requesterLabel", a."riskLevel", a."currentRevision" AS revision, k.kind,
      r."policyDecision"->'escalate'->>'role' AS role, r."policyDecision"->'escalate'->>'channel' AS channel,
      (r."policyDecision"->'escalate'->>'afterSeconds')::int AS "afterSeconds",
      r."eligibleRoles"::text[] AS "eligibleRoles", (r."policyDecision"->>'warnBeforeExpirySeconds')::int AS "warnBeforeSeconds",
      a."expiresAt"
    FROM clock, "Action" a
    JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision"
      AND (r."policyDecision" ? 'escalate' OR r."policyDecision" ? 'warnBeforeExpirySeconds')
    CROSS JOIN LATERAL (VALUES
      ('escalated', r."createdAt" + make_interval(secs => (r."policyDecision"->'escalate'->>'afterSeconds')::int)),
      ('expiry_warned', a."expiresAt" - make_interval(secs => (r."policyDecision"->>'warnBeforeExpirySeconds')::int))
    ) AS k(kind, "dueAt")
    WHERE a.status = 'pending' AND k."dueAt" IS NOT NULL AND k."dueAt" <= clock.now
      AND (a."expiresAt" IS NULL OR a."expiresAt" > clock.now)
      AND NOT EXISTS (
        SELECT 1 FROM "ActionReminder" f WHERE f."actionId" = a.id AND f.revision = a."currentRevision" AND f.kind = k.kind
      )
    ORDER BY k."dueAt" LIMIT ${input.limit}`);
}
