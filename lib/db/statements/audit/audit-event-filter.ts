import { Prisma, type AuditEvent } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import type { RiskLevel, Verdict } from "@/lib/generated/prisma/enums";

/** An event as a search returns it: its columns and its seal, if sealed. */
export type AuditEventRow = Omit<AuditEvent, "tenantId"> & { seq: bigint | null; leafHash: string | null };

/** Which of a tenant's audit events a search looks through: every condition but free text. */
export type AuditEventFilter = {
  tenantId: string;
  tool?: string;
  verdict?: Verdict;
  riskLevel?: RiskLevel;
  reviewerId?: string;
  requester?: string;
  status?: string;
  type?: string;
  /** Written at or after this time. */
  atOrAfter?: Date;
  /** Written before this time. */
  before?: Date;
  /** The time range as an id range (find-audit-id-floor.ts, find-audit-id-ceiling.ts), inclusive. */
  minId?: bigint;
  maxId?: bigint;
  /** The keyset cursor: only events older than this id (the last one of the page before). */
  belowId?: bigint;
};

/**
 * The filter as a WHERE condition on `e` ("AuditEvent"), tenant first (every where names the
 * tenant). Each column filter matches a (tenantId, <column>, id) index; the time range stays as a
 * check next to the id range, in case a clock ever stepped back. Values are bound parameters.
 */
export function auditEventConditions(f: AuditEventFilter): Sql {
  const c: Sql[] = [Prisma.sql`e."tenantId" = ${f.tenantId}::uuid`];
  if (f.tool) c.push(Prisma.sql`e.tool = ${f.tool}`);
  if (f.verdict) c.push(Prisma.sql`e.verdict = ${f.verdict}::"Verdict"`);
  if (f.riskLevel) c.push(Prisma.sql`e."riskLevel" = ${f.riskLevel}::"RiskLevel"`);
  if (f.reviewerId) c.push(Prisma.sql`e."reviewerId" = ${f.reviewerId}::uuid`);
  if (f.requester) c.push(Prisma.sql`e.requester = ${f.requester}`);
  if (f.status) c.push(Prisma.sql`e.status = ${f.status}`);
  if (f.type) c.push(Prisma.sql`e.type = ${f.type}`);
  if (f.atOrAfter) c.push(Prisma.sql`e.at >= ${f.atOrAfter}`);
  if (f.before) c.push(Prisma.sql`e.at < ${f.before}`);
  if (f.minId !== undefined) c.push(Prisma.sql`e.id >= ${f.minId}`);
  if (f.maxId !== undefined) c.push(Prisma.sql`e.id <= ${f.maxId}`);
  if (f.belowId !== undefined) c.push(Prisma.sql`e.id < ${f.belowId}`);
  return Prisma.join(c, " AND ");
}

/** An event's columns as the explorer reads them, with its seal's (joined by `auditEventSeals`). */
export const auditEventColumns = Prisma.sql`e.id, s.seq, e.at, e."actorType", e."actorId", e."actorLabel", e.type, e.outcome, e."subjectType", e."subjectId",
  e."actionId"::text AS "actionId", e.tool, e.verdict::text AS verdict, e."riskLevel"::text AS "riskLevel", e."reviewerId"::text AS "reviewerId",
  e.requester, e.status, e.data, e.uid, e.mac, e."macOmits", s."leafHash"`;

/** Each event's seal, if it has one yet. */
export const auditEventSeals = Prisma.sql`LEFT JOIN "AuditSeal" s ON s."eventId" = e.id`;
