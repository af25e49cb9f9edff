import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditCte } from "@/lib/db/statements/audit/insert-audit-events";
import { adminNowSql } from "@/lib/db/statements/tenant/admin-rules";

/**
 * Replaces one server's secrets (names and sealed values) with its `mcp.server_secrets_changed`
 * event, in one statement: only while the sealed values are those the change started from
 * (`fromSealed`), so two admins' edits never merge silently, and only by an admin now
 * (admin-rules.ts). The refusal names the rule.
 */
export async function updateMcpServerSecrets(
  q: Queryable,
  input: {
    tenantId: string; serverId: string; byUserId: string; fromSealed: string | null; secretNames: string[]; sealedSecrets: string | null; changed: AttestedAuditBody;
  },
): Promise<{ changed: true } | { changed: false; refusal: "not_admin" | "stale" }> {
  const [row] = await query<{ admin: boolean; changed: boolean }>(q, Prisma.sql`
    WITH admin AS (SELECT ${adminNowSql(Prisma.sql`${input.tenantId}::uuid`, Prisma.sql`${input.byUserId}::uuid`)} AS ok),
    changed AS (
      UPDATE "McpServer" SET "secretNames" = ${input.secretNames}::text[], "sealedSecrets" = ${input.sealedSecrets}
      WHERE id = ${input.serverId}::uuid AND "tenantId" = ${input.tenantId}::uuid AND "sealedSecrets" IS NOT DISTINCT FROM ${input.fromSealed}
        AND (SELECT ok FROM admin)
      RETURNING id
    ),
    ${auditCte(input.changed, { gate: "changed" })}
    SELECT (SELECT ok FROM admin) AS admin, EXISTS (SELECT 1 FROM changed) AS changed`);
  if (row.changed) return { changed: true };
  return { changed: false, refusal: row.admin ? "stale" : "not_admin" };
}
