import { assertCanonicalizable } from "@/lib/canonical/assert-canonicalizable";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { DbTx } from "@/lib/db/client";
import type { RiskLevel, Verdict } from "@/lib/generated/prisma/enums";
import { auditEventHash, GENESIS_HASH, type AuditRecord } from "@/lib/audit/audit-record";

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

// Namespace for the per-tenant advisory lock that serialises appends (so the chain never forks).
const AUDIT_LOCK_NAMESPACE = 0x0a0d17;

/**
 * Appends one event to the tenant's hash chain. Call it inside the transaction that makes the
 * change it records, as late as possible: the tenant's chain lock is held until that commit.
 */
export async function appendAuditEvent(tx: DbTx, event: AuditEventInput): Promise<{ seq: bigint; hash: string }> {
  const data = event.data ?? {};
  assertCanonicalizable(data);
  // Lock first, in its own statement: under READ COMMITTED a statement reads the snapshot taken
  // when it starts, so reading the head in the same statement that waited for the lock would see
  // a stale head and fork the chain.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${AUDIT_LOCK_NAMESPACE}::int, hashtext(${event.tenantId}::text))`;
  const [head] = await tx.$queryRaw<Array<{ seq: bigint | null; hash: string | null; at: Date }>>`
    SELECT last.seq, last.hash, date_trunc('milliseconds', clock_timestamp()) AS at
    FROM (SELECT 1) one
    LEFT JOIN LATERAL (
      SELECT seq, hash FROM "AuditEvent" WHERE "tenantId" = ${event.tenantId}::uuid ORDER BY seq DESC LIMIT 1
    ) last ON true`;
  const seq = (head.seq ?? 0n) + 1n;
  const record: AuditRecord = {
    tenantId: event.tenantId,
    seq: seq.toString(),
    at: head.at.toISOString(),
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
    prevHash: head.hash ?? GENESIS_HASH,
  };
  const hash = auditEventHash(record);
  // A raw INSERT: this runs inside every state-changing transaction, while the chain lock is held.
  await tx.$executeRaw`
    INSERT INTO "AuditEvent" ("tenantId", seq, at, "actorType", "actorId", "actorLabel", type, outcome, "subjectType",
      "subjectId", "actionId", tool, verdict, "riskLevel", "reviewerId", requester, status, data, "prevHash", hash)
    VALUES (${record.tenantId}::uuid, ${seq}, ${head.at}, ${record.actorType}, ${record.actorId}, ${record.actorLabel},
      ${record.type}, ${record.outcome}, ${record.subjectType}, ${record.subjectId}, ${record.actionId}::uuid, ${record.tool},
      ${record.verdict}::"Verdict", ${record.riskLevel}::"RiskLevel", ${record.reviewerId}::uuid, ${record.requester},
      ${record.status}, ${JSON.stringify(data)}::jsonb, ${record.prevHash}, ${hash})`;
  return { seq, hash };
}
