import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type GrantRow = {
  id: string;
  tool: string;
  sourceActionId: string;
  keyName: string | null;
  apiKeyId: string | null;
  taskId: string | null;
  description: string;
  constraint: string;
  maxCalls: number | null;
  usedCalls: number;
  totalArgument: string | null;
  maxTotal: string | null;
  usedTotal: string;
  status: "active" | "revoked";
  expired: boolean;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
};

/**
 * The tenant's grants, those in force first, by key, then the latest (at most `limit`); with
 * `actionId`, only those made from that action or named in `grantIds`.
 */
export async function readGrants(q: Queryable, input: { tenantId: string; limit: number; actionId?: string; grantIds?: string[] }): Promise<GrantRow[]> {
  const only = input.actionId === undefined
    ? Prisma.sql`true`
    : Prisma.sql`(g."sourceActionId" = ${input.actionId}::uuid OR g.id = ANY(${input.grantIds ?? []}::uuid[]))`;
  return query<GrantRow>(q, Prisma.sql`
    SELECT g.id, g.tool, g."sourceActionId", k.name AS "keyName", g."apiKeyId", g."taskId", g.description, g."constraint",
      g."maxCalls", g."usedCalls", g."totalArgument", g."maxTotal"::text AS "maxTotal", g."usedTotal"::text AS "usedTotal", g.status::text AS status,
      g."expiresAt" <= now() AS expired, g."createdAt", g."expiresAt", g."revokedAt"
    FROM "Grant" g LEFT JOIN "ApiKey" k ON k.id = g."apiKeyId"
    WHERE g."tenantId" = ${input.tenantId}::uuid AND ${only}
    ORDER BY (g.status = 'active' AND g."expiresAt" > now()) DESC, k.name NULLS LAST, g."createdAt" DESC
    LIMIT ${input.limit}`);
}
