import { assertCanonicalizable } from "@/lib/canonical/assert-canonicalizable";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { Db, DbTx } from "@/lib/db/client";
import type { RiskLevel, Verdict } from "@/lib/generated/prisma/enums";
import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import { hasPool, sqlQuery } from "@/lib/db/sql";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import type { AuditBody } from "@/lib/audit/audit-record";

export type AuditActor = { type: "user" | "api_key" | "system" | "agent"; id?: string | null; label: string };

export type AuditEventInput = {
  tenantId: string;
  actor: AuditActor;
  /** e.g. "action.proposed", "decision.recorded", "decision.refused", "execution.succeeded" */
  type: string;
  outcome: "ok" | "refused" | "error";
  subject: { type: string; id?: string | null };
  actionId?: string | null;
  tool?: string | null;
  verdict?: Verdict | null;
  riskLevel?: RiskLevel | null;
  reviewerId?: string | null;
  requester?: string | null;
  status?: string | null;
  data?: JsonObject;
};

/** The event's columns: what its hash will cover, apart from the chain link. */
export function auditBodyOf(event: AuditEventInput): { body: AuditBody } {
  const data = event.data ?? {};
  assertCanonicalizable(data);
  const body: AuditBody = {
    tenantId: event.tenantId,
    actorType: event.actor.type,
    actorId: event.actor.id ?? null,
    actorLabel: event.actor.label,
    type: event.type,
    outcome: event.outcome,
    subjectType: event.subject.type,
    subjectId: event.subject.id ?? null,
    actionId: event.actionId ?? null,
    tool: event.tool ?? null,
    verdict: event.verdict ?? null,
    riskLevel: event.riskLevel ?? null,
    reviewerId: event.reviewerId ?? null,
    requester: event.requester ?? null,
    status: event.status ?? null,
    data,
  };
  return { body };
}

/**
 * A common table expression, `audit`, that writes one event, for embedding in the statement that
 * makes the change the event records (`WITH ..., ${auditAppendCtes(e)} ...`), so both commit
 * together. The event is written unsealed; it joins the tenant's hash chain when it is sealed
 * (lib/audit/seal-audit-chain.ts): call `requestSeal` once the statement has committed.
 *
 * `gate` names an earlier CTE of the statement that must have returned a row for the event to be
 * written (the claim of an execution, say); `onlyIf` is a further condition. Statements that
 * embed this make their own writes depend on `audit`, or `audit` on theirs, so that either both
 * happen or neither does.
 */
export function auditAppendCtes(event: AuditEventInput, options: { gate?: "claim" | "vote" | "ended"; onlyIf?: Sql } = {}): Sql {
  const { body } = auditBodyOf(event);
  const gate = options.gate ? Prisma.raw(`, ${options.gate}`) : Prisma.empty;
  return Prisma.sql`audit AS (${auditInsertFromJson(Prisma.sql`(SELECT ${JSON.stringify(body)}::jsonb AS event) one${gate}`, Prisma.sql`one.event`, {
    where: options.onlyIf,
  })})`;
}

/**
 * The INSERT of audit events from `source`, a FROM list with a jsonb column (`event`) that holds
 * each event's `AuditBody`: the one mapping of an event onto its columns. `order` orders the
 * events (their ids follow it). Returns each event's `id` and `actionId`.
 */
export function auditInsertFromJson(source: Sql, event: Sql, options: { where?: Sql; order?: Sql } = {}): Sql {
  return Prisma.sql`INSERT INTO "AuditEvent" ("tenantId", at, "actorType", "actorId", "actorLabel", type, outcome, "subjectType",
        "subjectId", "actionId", tool, verdict, "riskLevel", "reviewerId", requester, status, data)
      SELECT (${event}->>'tenantId')::uuid, date_trunc('milliseconds', clock_timestamp()), ${event}->>'actorType',
        ${event}->>'actorId', ${event}->>'actorLabel', ${event}->>'type', ${event}->>'outcome', ${event}->>'subjectType',
        ${event}->>'subjectId', (${event}->>'actionId')::uuid, ${event}->>'tool', (${event}->>'verdict')::"Verdict",
        (${event}->>'riskLevel')::"RiskLevel", (${event}->>'reviewerId')::uuid, ${event}->>'requester', ${event}->>'status',
        ${event}->'data'
      FROM ${source}
      WHERE ${options.where ?? Prisma.sql`true`}
      ${options.order ? Prisma.sql`ORDER BY ${options.order}` : Prisma.empty}
      RETURNING id, "actionId"`;
}

/**
 * Writes one audit event (unsealed). Inside a transaction, call it in the transaction that makes
 * the change it records, and `requestSeal` after that transaction commits; on the app's client it
 * is its own statement and asks for the seal itself.
 */
export async function appendAuditEvent(db: DbTx, event: AuditEventInput): Promise<{ id: bigint }> {
  const [row] = await sqlQuery<{ id: bigint }>(db, Prisma.sql`WITH ${auditAppendCtes(event)} SELECT id FROM audit`);
  if (hasPool(db)) requestSeal(db as Db, event.tenantId);
  return row;
}
