import { assertCanonicalizable } from "@/lib/canonical/assert-canonicalizable";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { DbTx } from "@/lib/db/client";
import type { RiskLevel, Verdict } from "@/lib/generated/prisma/enums";
import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import { sqlQuery } from "@/lib/db/sql";
import { auditBodyJson, GENESIS_HASH, type AuditBody } from "@/lib/audit/audit-record";

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

/** What the hash covers apart from the chain link, as canonical JSON, with the event's columns. */
function auditBodyOf(event: AuditEventInput): { body: AuditBody; bodyJson: string } {
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
  return { body, bodyJson: auditBodyJson(body) };
}

/**
 * Common table expressions that append one event to the tenant's hash chain, for embedding in a
 * statement that also makes the change the event records (`WITH ..., ${auditAppendCtes(e)} ...`):
 * `audit_head` advances the tenant's AuditHead row and `audit` inserts the event with the sequence
 * number, time and hash the database computed from the head's latest committed state.
 *
 * The head UPDATE first queues on the tenant's advisory lock (`audit_chain_lock`, FIFO, unlike a
 * row lock whose many waiters are woken in no particular order), then locks the row; under READ
 * COMMITTED it re-evaluates its SET on the newest committed head, so the chain never forks. Both
 * locks last until the statement's transaction commits, so keep that transaction short: ideally
 * the whole change is this one statement. `gate` names an earlier CTE of the statement that must
 * have returned a row for the event to be appended (the claim of an execution, say); `onlyIf` is a
 * further condition. Statements that embed this make their own writes depend on `audit`, so that
 * either both happen or neither does.
 */
export function auditAppendCtes(event: AuditEventInput, options: { gate?: "claim" | "vote" | "ended"; onlyIf?: Sql } = {}): Sql {
  const { body, bodyJson } = auditBodyOf(event);
  const from = options.gate ? Prisma.raw(`audit_clock c, ${options.gate}`) : Prisma.raw("audit_clock c");
  const onlyIf = options.onlyIf ?? Prisma.sql`true`;
  return Prisma.sql`audit_clock AS (SELECT date_trunc('milliseconds', clock_timestamp()) AS now),
    audit_head AS (
      UPDATE "AuditHead" h SET
        seq = h.seq + 1,
        "prevHash" = h.hash,
        at = GREATEST(c.now, h.at),
        hash = encode(sha256(convert_to(
          h.hash || '|' || (h.seq + 1)::text || '|' ||
          to_char(GREATEST(c.now, h.at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '|' || ${bodyJson}::text,
          'UTF8')), 'hex')
      FROM ${from}
      WHERE h."tenantId" = ${event.tenantId}::uuid AND (${onlyIf}) AND audit_chain_lock(h."tenantId")
      RETURNING h.seq, h.hash, h."prevHash", h.at
    ),
    audit AS (
      INSERT INTO "AuditEvent" ("tenantId", seq, at, "actorType", "actorId", "actorLabel", type, outcome, "subjectType",
        "subjectId", "actionId", tool, verdict, "riskLevel", "reviewerId", requester, status, data, "prevHash", hash)
      SELECT ${body.tenantId}::uuid, audit_head.seq, audit_head.at, ${body.actorType}, ${body.actorId}, ${body.actorLabel},
        ${body.type}, ${body.outcome}, ${body.subjectType}, ${body.subjectId}, ${body.actionId}::uuid, ${body.tool},
        ${body.verdict}::"Verdict", ${body.riskLevel}::"RiskLevel", ${body.reviewerId}::uuid, ${body.requester},
        ${body.status}, ${JSON.stringify(body.data)}::jsonb, audit_head."prevHash", audit_head.hash
      FROM audit_head
      RETURNING seq, hash
    )`;
}

/**
 * Appends one event to the tenant's hash chain in one statement (see `auditAppendCtes`). Call it
 * inside the transaction that makes the change it records, as late as possible: the chain stays
 * locked until that commit.
 */
export async function appendAuditEvent(tx: DbTx, event: AuditEventInput): Promise<{ seq: bigint; hash: string }> {
  const append = Prisma.sql`WITH ${auditAppendCtes(event)} SELECT seq, hash FROM audit`;
  for (let attempt = 0; attempt < 2; attempt++) {
    const rows = await sqlQuery<{ seq: bigint; hash: string }>(tx, append);
    if (rows[0]) return rows[0];
    // A tenant created before its head was: create the head (at the genesis) and append again.
    await tx.$executeRaw`
      INSERT INTO "AuditHead" ("tenantId", seq, hash, "prevHash", at)
      VALUES (${event.tenantId}::uuid, 0, ${GENESIS_HASH}, ${GENESIS_HASH}, to_timestamp(0))
      ON CONFLICT ("tenantId") DO NOTHING`;
  }
  throw new Error(`Could not append to the audit chain of tenant ${event.tenantId}`);
}
