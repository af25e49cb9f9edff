import { randomUUID } from "node:crypto";
import { z } from "zod";
import { assertCanonicalizable } from "@/lib/canonical/assert-canonicalizable";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { DbTx } from "@/lib/db/client";
import type { RiskLevel, Verdict } from "@/lib/generated/prisma/enums";
import { hasPool, type Queryable } from "@/lib/db/sql";
import { insertAuditEvent } from "@/lib/db/statements/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import type { AttestedAuditBody, AuditBody } from "@/lib/db/audit-body";
import { auditKeys } from "@/lib/audit/audit-keys";
import { eventMac } from "@/lib/audit/event-mac";
import { AUDIT_EVENT_SCHEMAS, type AuditEventData, type AuditEventType } from "@/lib/audit/audit-event-types";

export type AuditActor = { type: "user" | "api_key" | "system" | "agent"; id?: string | null; label: string };

type AuditEventBase = {
  tenantId: string;
  actor: AuditActor;
  outcome: "ok" | "refused" | "error";
  subject: { type: string; id?: string | null };
  actionId?: string | null;
  tool?: string | null;
  verdict?: Verdict | null;
  riskLevel?: RiskLevel | null;
  reviewerId?: string | null;
  requester?: string | null;
  status?: string | null;
};

/** One audit event: its type decides the shape of its data (lib/audit/audit-event-types.ts). */
export type AuditEventInput = { [T in AuditEventType]: AuditEventBase & { type: T; data: AuditEventData<T> } }[AuditEventType];

/** An event a statement completes: its data without the keys the statement fills in itself. */
export type AuditEventTemplate<T extends AuditEventType, K extends keyof AuditEventData<T>> = AuditEventBase & {
  type: T;
  data: Omit<AuditEventData<T>, K>;
};

function bodyOf(event: AuditEventBase & { type: string }, data: unknown): AuditBody {
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
    data: data as JsonObject,
  };
}

function schemaMismatch(type: string, error: z.ZodError): Error {
  return new Error(`The ${type} audit event does not fit its schema (lib/audit/audit-event-types.ts): ${z.prettifyError(error)}`);
}

/** The body with a fresh uid and the console's MAC over both, leaving out `omits` (lib/audit/event-mac.ts). */
function attest(body: AuditBody, omits: string[]): AttestedAuditBody {
  const uid = randomUUID();
  return { ...body, uid, mac: eventMac(auditKeys().macKey, { uid, body, omits }), macOmits: omits };
}

/** The event as it will be written — its columns, its data checked against its type's schema — with its MAC. */
export function auditBodyOf(event: AuditEventInput): AttestedAuditBody {
  const parsed = AUDIT_EVENT_SCHEMAS[event.type].safeParse(event.data);
  if (!parsed.success) throw schemaMismatch(event.type, parsed.error);
  return attest(bodyOf(event, parsed.data), []);
}

/**
 * An event a statement completes: it adds `filled` to the data (and sets the `columns` named);
 * the rest is checked here, and the MAC covers everything but what the statement fills in.
 */
export function auditTemplateOf<T extends AuditEventType, K extends keyof AuditEventData<T> & string>(
  event: AuditEventTemplate<T, K>,
  filled: readonly K[],
  options: { columns?: ReadonlyArray<"status"> } = {},
): AttestedAuditBody {
  const { shape } = AUDIT_EVENT_SCHEMAS[event.type] as z.ZodObject;
  const rest = z.strictObject(Object.fromEntries(Object.entries(shape).filter(([key]) => !(filled as readonly string[]).includes(key))));
  const parsed = rest.safeParse(event.data);
  if (!parsed.success) throw schemaMismatch(event.type, parsed.error);
  return attest(bodyOf(event, parsed.data), [...(options.columns ?? []), ...filled.map((key) => `data.${key}`)]);
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
