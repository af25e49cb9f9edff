import { assertCanonicalizable } from "@/lib/canonical/assert-canonicalizable";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { DbTx } from "@/lib/db/client";
import type { RiskLevel, Verdict } from "@/lib/generated/prisma/enums";
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

// Namespace of the per-tenant advisory lock appends queue on.
const AUDIT_LOCK_NAMESPACE = 0x0a0d17;

/**
 * Appends one event to the tenant's hash chain in a single statement: it advances the tenant's
 * AuditHead row (whose row lock serialises appends until this transaction commits, so the chain
 * never forks) and inserts the event with the sequence number, time and hash the database computed
 * from the head's latest committed state. Call it inside the transaction that makes the change it
 * records, as late as possible: the head stays locked until that commit.
 */
export async function appendAuditEvent(tx: DbTx, event: AuditEventInput): Promise<{ seq: bigint; hash: string }> {
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
  const bodyJson = auditBodyJson(body);
  // Queue for the tenant's chain in the lock manager first: advisory-lock waiters are served in
  // order, whereas many transactions waiting on one row lock are woken all at once and served in
  // no particular order (a long latency tail under load). The head row's lock then never waits.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${AUDIT_LOCK_NAMESPACE}::int, hashtext(${event.tenantId}::text))`;
  for (let attempt = 0; attempt < 2; attempt++) {
    // Under READ COMMITTED an UPDATE that waited for the row lock re-evaluates its SET expressions
    // on the newest committed head, so seq, prevHash and hash always extend the latest event.
    // `at` never goes backwards along the chain (GREATEST with the head's time).
    const rows = await tx.$queryRaw<Array<{ seq: bigint; hash: string }>>`
      WITH clock AS (SELECT date_trunc('milliseconds', clock_timestamp()) AS now),
      head AS (
        UPDATE "AuditHead" h SET
          seq = h.seq + 1,
          "prevHash" = h.hash,
          at = GREATEST(clock.now, h.at),
          hash = encode(sha256(convert_to(
            h.hash || '|' || (h.seq + 1)::text || '|' ||
            to_char(GREATEST(clock.now, h.at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '|' || ${bodyJson},
            'UTF8')), 'hex')
        FROM clock
        WHERE h."tenantId" = ${event.tenantId}::uuid
        RETURNING h.seq, h.hash, h."prevHash", h.at
      )
      INSERT INTO "AuditEvent" ("tenantId", seq, at, "actorType", "actorId", "actorLabel", type, outcome, "subjectType",
        "subjectId", "actionId", tool, verdict, "riskLevel", "reviewerId", requester, status, data, "prevHash", hash)
      SELECT ${body.tenantId}::uuid, head.seq, head.at, ${body.actorType}, ${body.actorId}, ${body.actorLabel}, ${body.type},
        ${body.outcome}, ${body.subjectType}, ${body.subjectId}, ${body.actionId}::uuid, ${body.tool},
        ${body.verdict}::"Verdict", ${body.riskLevel}::"RiskLevel", ${body.reviewerId}::uuid, ${body.requester},
        ${body.status}, ${JSON.stringify(data)}::jsonb, head."prevHash", head.hash
      FROM head
      RETURNING seq, hash`;
    if (rows[0]) return rows[0];
    // The tenant's first event: create its head (at the genesis) and append again.
    await tx.$executeRaw`
      INSERT INTO "AuditHead" ("tenantId", seq, hash, "prevHash", at)
      VALUES (${event.tenantId}::uuid, 0, ${GENESIS_HASH}, ${GENESIS_HASH}, to_timestamp(0))
      ON CONFLICT ("tenantId") DO NOTHING`;
  }
  throw new Error(`Could not append to the audit chain of tenant ${event.tenantId}`);
}
