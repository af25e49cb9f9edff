import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";
import { adminNowSql } from "@/lib/db/statements/tenant/admin-rules";

/**
 * Replaces an endpoint's sealed secrets (the new one, the old kept as previous) with its event, in
 * one statement, opening the overlap in which deliveries carry both signatures. The overlap's end
 * (database clock) is returned and filled into the event's `previousValidUntil` (auditTemplateOf);
 * null and "" when no previous secret is kept. Admin now only (admin-rules.ts).
 */
export async function rotateWebhookSecret(
  q: Queryable,
  input: { tenantId: string; endpointId: string; byUserId: string; secrets: string; overlapSeconds: number; event: AttestedAuditBody },
): Promise<{ rotated: true; previousValidUntil: Date | null } | { rotated: false; refusal: "not_admin" | "not_found" }> {
  const [row] = await query<{ admin: boolean; rotated: boolean; previousValidUntil: Date | null }>(q, Prisma.sql`
    WITH admin AS (SELECT ${adminNowSql(Prisma.sql`${input.tenantId}::uuid`, Prisma.sql`${input.byUserId}::uuid`)} AS ok),
    rotated AS (
      UPDATE "WebhookEndpoint" SET secrets = ${input.secrets}, "previousSecretUntil" = now() + make_interval(secs => ${input.overlapSeconds})
      WHERE id = ${input.endpointId}::uuid AND "tenantId" = ${input.tenantId}::uuid AND (SELECT ok FROM admin)
      RETURNING id, CASE WHEN ${input.overlapSeconds}::int > 0 THEN "previousSecretUntil" END AS "previousValidUntil"
    ),
    events AS (
      SELECT ${JSON.stringify(input.event)}::jsonb || jsonb_build_object('data', ${JSON.stringify(input.event.data)}::jsonb || jsonb_build_object('previousValidUntil',
        COALESCE(to_char(r."previousValidUntil" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), ''))) AS event
      FROM rotated r
    ),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`)})
    SELECT (SELECT ok FROM admin) AS admin, EXISTS (SELECT 1 FROM rotated) AS rotated, (SELECT "previousValidUntil" FROM rotated) AS "previousValidUntil"`);
  if (row.rotated) return { rotated: true, previousValidUntil: row.previousValidUntil };
  return { rotated: false, refusal: row.admin ? "not_found" : "not_admin" };
}
