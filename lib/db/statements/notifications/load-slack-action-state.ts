import { Prisma } from "@/lib/generated/prisma/client";
import type { RiskLevel } from "@/lib/generated/prisma/enums";
import { query, type Queryable } from "@/lib/db/sql";

export type SlackActionRow = {
  actionId: string;
  tool: string;
  /** A code action's code is not in `args`: Slack never shows it. */
  kind: "tool" | "code";
  status: string;
  revision: number;
  payloadHash: string;
  preview: unknown;
  args: unknown;
  riskLevel: RiskLevel;
  riskTags: unknown;
  expiresAt: Date | null;
  requesterLabel: string;
  signatureRequired: boolean;
  minViewTime: boolean;
  decidedBy: string | null;
};

/** An action's current revision, as its Slack message shows it; null when not in the tenant. */
export async function loadSlackActionState(q: Queryable, input: { tenantId: string; actionId: string }): Promise<SlackActionRow | null> {
  const [row] = await query<SlackActionRow>(q, Prisma.sql`
    SELECT a.id AS "actionId", a.tool, a.kind::text AS kind, a.status::text AS status, r.revision, r."payloadHash", r.preview, r.args, r."riskLevel"::text AS "riskLevel",
      r."riskTags", a."expiresAt", a."requesterLabel",
      (r."policyDecision"->>'signature') IS NOT DISTINCT FROM 'required' AS "signatureRequired",
      (r."policyDecision"->>'minViewSeconds') IS NOT NULL AS "minViewTime",
      (SELECT u.email FROM "Decision" d JOIN "User" u ON u.id = d."reviewerId" WHERE d."actionId" = a.id ORDER BY d."createdAt" DESC LIMIT 1) AS "decidedBy"
    FROM "Action" a JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision"
    WHERE a.id = ${input.actionId}::uuid AND a."tenantId" = ${input.tenantId}::uuid`);
  return row ?? null;
}
