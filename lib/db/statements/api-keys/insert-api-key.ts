import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditCte } from "@/lib/db/statements/audit/insert-audit-events";
import { adminNowSql } from "@/lib/db/statements/tenant/admin-rules";

export type InsertedApiKey = { id: string; name: string; prefix: string; allowedTools: string[]; createdAt: Date };

/**
 * A new API key of the tenant with its `api_key.created` event, in one statement. Null: its author
 * is not an admin now (admin-rules.ts); nothing written.
 */
export async function insertApiKey(
  q: Queryable,
  input: { id: string; tenantId: string; name: string; prefix: string; secretHash: string; allowedTools: string[]; createdById: string; created: AttestedAuditBody },
): Promise<InsertedApiKey | null> {
  const [row] = await query<InsertedApiKey>(q, Prisma.sql`
    WITH admin AS (SELECT ${adminNowSql(Prisma.sql`${input.tenantId}::uuid`, Prisma.sql`${input.createdById}::uuid`)} AS ok),
    created AS (
      INSERT INTO "ApiKey" (id, "tenantId", name, prefix, "secretHash", "allowedTools", "createdById")
      SELECT ${input.id}::uuid, ${input.tenantId}::uuid, ${input.name}, ${input.prefix}, ${input.secretHash}, ${input.allowedTools}::text[], ${input.createdById}::uuid
      WHERE (SELECT ok FROM admin)
      RETURNING id, name, prefix, "allowedTools", "createdAt"
    ),
    ${auditCte(input.created, { gate: "created" })}
    SELECT id::text AS id, name, prefix, "allowedTools", "createdAt" FROM created`);
  return row ?? null;
}
