import { Prisma } from "@/lib/generated/prisma/client";
import type { JsonObject } from "@/lib/canonical/json-value";
import { jsonParam, query, type SqlClient } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";
import { adminNowSql } from "@/lib/db/statements/tenant/admin-rules";

export type McpToolWrite = {
  /** A tool recorded before (updated by id), or one seen for the first time (inserted). */
  existing: boolean;
  id: string;
  name: string;
  qualifiedName: string;
  status: "new" | "approved" | "held";
  /** What the server lists when it is not the pinned definition; null for approved tools. */
  pending: JsonObject | null;
  pendingHash: string | null;
};

/**
 * Records one listing of a server's tools with its audit events, in one statement: listed tools
 * updated (never their pinned definition) or inserted, unlisted ones marked gone, the server's
 * listing time set and last error cleared. False: its author is not an admin now (admin-rules.ts).
 * Runs in the transaction that locked the server and its tools.
 */
export async function writeMcpToolList(
  tx: SqlClient,
  input: { tenantId: string; serverId: string; byUserId: string; tools: McpToolWrite[]; events: AttestedAuditBody[] },
): Promise<boolean> {
  const names = input.tools.map((t) => t.name);
  const [row] = await query<{ admin: boolean }>(tx, Prisma.sql`
    WITH admin AS (SELECT ${adminNowSql(Prisma.sql`${input.tenantId}::uuid`, Prisma.sql`${input.byUserId}::uuid`)} AS ok),
    listed AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(input.tools)}::jsonb)
        AS t(existing boolean, id uuid, name text, "qualifiedName" text, status text, pending jsonb, "pendingHash" text)
      WHERE (SELECT ok FROM admin)
    ),
    updated AS (
      UPDATE "McpTool" t SET status = l.status::"McpToolStatus", pending = l.pending, "pendingHash" = l."pendingHash", "seenAt" = now()
      FROM listed l
      WHERE l.existing AND t.id = l.id AND t."serverId" = ${input.serverId}::uuid AND t."tenantId" = ${input.tenantId}::uuid
      RETURNING t.id
    ),
    inserted AS (
      INSERT INTO "McpTool" (id, "tenantId", "serverId", name, "qualifiedName", status, pending, "pendingHash", "seenAt")
      SELECT l.id, ${input.tenantId}::uuid, ${input.serverId}::uuid, l.name, l."qualifiedName", l.status::"McpToolStatus", l.pending, l."pendingHash", now()
      FROM listed l WHERE NOT l.existing
      RETURNING id
    ),
    gone AS (
      UPDATE "McpTool" SET status = 'gone'
      WHERE "serverId" = ${input.serverId}::uuid AND "tenantId" = ${input.tenantId}::uuid AND status <> 'gone' AND NOT (name = ANY(${names}::text[]))
        AND (SELECT ok FROM admin)
      RETURNING id
    ),
    server AS (
      UPDATE "McpServer" SET "listedAt" = now(), "listError" = NULL
      WHERE id = ${input.serverId}::uuid AND "tenantId" = ${input.tenantId}::uuid AND (SELECT ok FROM admin)
      RETURNING id
    ),
    events AS (SELECT e.event, e.n FROM jsonb_array_elements(${jsonParam(input.events)}::jsonb) WITH ORDINALITY AS e(event, n) WHERE (SELECT ok FROM admin)),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`, { order: Prisma.sql`events.n` })})
    SELECT (SELECT ok FROM admin) AS admin, (SELECT count(*) FROM updated) AS updated, (SELECT count(*) FROM inserted) AS inserted, (SELECT count(*) FROM gone) AS gone, (SELECT count(*) FROM server) AS servers,
      (SELECT count(*) FROM audit) AS events`);
  return row.admin;
}
