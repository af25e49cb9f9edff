import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/audit/audit-record";
import { auditCte } from "@/lib/db/statements/insert-audit-events";

/**
 * Replaces one server's secrets (their names and sealed values) with its
 * `mcp.server_secrets_changed` event, in one statement — only if the sealed values are still
 * those the change started from (`fromSealed`), so two admins' edits never merge silently.
 */
export async function updateMcpServerSecrets(
  q: Queryable,
  input: { tenantId: string; serverId: string; fromSealed: string | null; secretNames: string[]; sealedSecrets: string | null; changed: AttestedAuditBody },
): Promise<boolean> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    WITH changed AS (
      UPDATE "McpServer" SET "secretNames" = ${input.secretNames}::text[], "sealedSecrets" = ${input.sealedSecrets}
      WHERE id = ${input.serverId}::uuid AND "tenantId" = ${input.tenantId}::uuid AND "sealedSecrets" IS NOT DISTINCT FROM ${input.fromSealed}
      RETURNING id
    ),
    ${auditCte(input.changed, { gate: "changed" })}
    SELECT id FROM changed`);
  return rows.length === 1;
}
