import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import type { AttestedAuditBody } from "@/lib/db/audit-body";

/**
 * The INSERT of audit events from `source`, a FROM list with a jsonb expression `event` that holds
 * each event's `AttestedAuditBody` (lib/audit/append-audit-event.ts makes them): the one mapping of an event onto its columns. `order` orders the
 * events (their ids follow it). Returns each event's `id` and `actionId`. Events are written
 * unsealed; sealing adds them to the tenant's tree moments later (lib/audit/seal-audit-chain.ts).
 */
export function auditInsertFromJson(source: Sql, event: Sql, options: { where?: Sql; order?: Sql } = {}): Sql {
  return Prisma.sql`INSERT INTO "AuditEvent" ("tenantId", at, uid, mac, "macOmits", "actorType", "actorId", "actorLabel", type, outcome, "subjectType",
        "subjectId", "actionId", tool, verdict, "riskLevel", "reviewerId", requester, status, data)
      SELECT (${event}->>'tenantId')::uuid, date_trunc('milliseconds', clock_timestamp()), (${event}->>'uid')::uuid, ${event}->>'mac',
        ARRAY(SELECT jsonb_array_elements_text(${event}->'macOmits')), ${event}->>'actorType',
        ${event}->>'actorId', ${event}->>'actorLabel', ${event}->>'type', ${event}->>'outcome', ${event}->>'subjectType',
        ${event}->>'subjectId', (${event}->>'actionId')::uuid, ${event}->>'tool', (${event}->>'verdict')::"Verdict",
        (${event}->>'riskLevel')::"RiskLevel", (${event}->>'reviewerId')::uuid, ${event}->>'requester', ${event}->>'status',
        ${event}->'data'
      FROM ${source}
      WHERE ${options.where ?? Prisma.sql`true`}
      ${options.order ? Prisma.sql`ORDER BY ${options.order}` : Prisma.empty}
      RETURNING id, "actionId"`;
}

/** An event body as a jsonb expression, for `auditInsertFromJson`. */
export function auditBodySql(body: AttestedAuditBody): Sql {
  return Prisma.sql`${JSON.stringify(body)}::jsonb`;
}

/**
 * A common table expression, `audit`, that writes one event, for embedding in the statement that
 * makes the change the event records (`WITH ..., ${auditCte(body)} ...`), so both commit
 * together. `gate` names an earlier CTE of the statement that must have returned a row for the
 * event to be written (the claim of an execution, say); `onlyIf` is a further condition.
 */
export function auditCte(body: AttestedAuditBody, options: { gate?: string; onlyIf?: Sql } = {}): Sql {
  const gate = options.gate ? Prisma.raw(`, ${options.gate}`) : Prisma.empty;
  return Prisma.sql`audit AS (${auditInsertFromJson(Prisma.sql`(SELECT ${auditBodySql(body)} AS event) one${gate}`, Prisma.sql`one.event`, {
    where: options.onlyIf,
  })})`;
}
