import { assertCanonicalizable } from "@/lib/canonical/assert-canonicalizable";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { DbTx } from "@/lib/db/client";
import type { RiskLevel, Verdict } from "@/lib/generated/prisma/enums";
import { hasPool, type Queryable } from "@/lib/db/sql";
import { insertAuditEvent } from "@/lib/db/statements/append-audit-event";
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
export function auditBodyOf(event: AuditEventInput): AuditBody {
  const data = event.data ?? {};
  assertCanonicalizable(data);
  return {
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
}

/**
 * Writes one audit event (unsealed). Inside a transaction, call it in the transaction that makes
 * the change it records, and `requestSeal` after that transaction commits; on the app's client it
 * is its own statement and asks for the seal itself.
 */
export async function appendAuditEvent(q: DbTx | Queryable, event: AuditEventInput): Promise<{ id: bigint }> {
  const row = await insertAuditEvent(q, auditBodyOf(event));
  if (hasPool(q)) void requestSeal(q, event.tenantId);
  return row;
}
