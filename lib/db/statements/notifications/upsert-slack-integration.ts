import { Prisma } from "@/lib/generated/prisma/client";
import type { RiskLevel } from "@/lib/generated/prisma/enums";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";
import { adminNowSql } from "@/lib/db/statements/tenant/admin-rules";

/**
 * Saves a tenant's Slack app with its `slack.configured` event, in one statement. With `secrets`
 * it creates the integration or replaces them (a new one's cursors of `cursorChannels` start at the
 * current tree size); without, it changes an existing one's channel and threshold
 * (`not_configured`: none). Admin now only (admin-rules.ts, `updatedById`).
 */
export async function upsertSlackIntegration(
  q: Queryable,
  input: {
    tenantId: string; channel: string; openOnlyFrom: RiskLevel; secrets: string | null; cursorChannels: string[]; updatedById: string; event: AttestedAuditBody;
  },
): Promise<{ saved: true } | { saved: false; refusal: "not_admin" | "not_configured" }> {
  const saved = input.secrets === null
    ? Prisma.sql`
      UPDATE "SlackIntegration" SET channel = ${input.channel}, "openOnlyFrom" = ${input.openOnlyFrom}::"RiskLevel",
        "updatedById" = ${input.updatedById}::uuid, "updatedAt" = now()
      WHERE "tenantId" = ${input.tenantId}::uuid AND (SELECT ok FROM admin)
      RETURNING "tenantId"`
    : Prisma.sql`
      INSERT INTO "SlackIntegration" ("tenantId", secrets, channel, "openOnlyFrom", "updatedById")
      SELECT ${input.tenantId}::uuid, ${input.secrets}, ${input.channel}, ${input.openOnlyFrom}::"RiskLevel", ${input.updatedById}::uuid
      WHERE (SELECT ok FROM admin)
      ON CONFLICT ("tenantId") DO UPDATE SET secrets = EXCLUDED.secrets, channel = EXCLUDED.channel, "openOnlyFrom" = EXCLUDED."openOnlyFrom",
        "updatedById" = EXCLUDED."updatedById", "updatedAt" = now()
      RETURNING "tenantId"`;
  const [row] = await query<{ admin: boolean; saved: boolean }>(q, Prisma.sql`
    WITH admin AS (SELECT ${adminNowSql(Prisma.sql`${input.tenantId}::uuid`, Prisma.sql`${input.updatedById}::uuid`)} AS ok),
    saved AS (${saved}),
    cursors AS (
      INSERT INTO "OutboxCursor" (channel, "subscriptionId", "tenantId", "cursorSeq")
      SELECT k.channel, s."tenantId", s."tenantId", COALESCE((SELECT max(seq) FROM "AuditSeal" WHERE "tenantId" = ${input.tenantId}::uuid), 0)
      FROM saved s CROSS JOIN unnest(${input.cursorChannels}::text[]) AS k(channel)
      ON CONFLICT (channel, "subscriptionId") DO NOTHING
    ),
    events AS (SELECT ${JSON.stringify(input.event)}::jsonb AS event FROM saved),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`)})
    SELECT (SELECT ok FROM admin) AS admin, EXISTS (SELECT 1 FROM saved) AS saved`);
  if (row.saved) return { saved: true };
  return { saved: false, refusal: row.admin ? "not_configured" : "not_admin" };
}
