import type { Member } from "@/lib/approvals/actors";
import { memberAuditActor } from "@/lib/approvals/actors";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { hasPermission } from "@/lib/roles/permissions";
import type { Db } from "@/lib/db/client";
import { AppError, isAppError, markAudited, wasAudited } from "@/lib/errors";
import { noLongerAdmin } from "@/lib/auth/no-longer-admin";

/** What a statement that acts on MCP servers says when the one asking is no longer an admin (admin-rules.ts). */
export function noLongerMcpAdmin(): AppError {
  return noLongerAdmin("manage MCP servers");
}

/**
 * Runs one admin operation on upstream MCP servers: only for a member whose roles (read from the
 * database by the caller) include `admin:manage` — checked here too, not only at the request
 * boundary, because what is managed here runs commands and sends secrets — and every refusal,
 * the wrong role included, is audited as `mcp.server_refused` once.
 */
export async function asMcpAdmin<T>(db: Db, input: { tenantId: string; admin: Member; operation: string }, run: () => Promise<T>): Promise<T> {
  try {
    if (!hasPermission(input.admin.roles, "admin:manage")) {
      throw new AppError("forbidden", "Only admins may manage MCP servers.", 403);
    }
    return await run();
  } catch (error) {
    if (isAppError(error) && !wasAudited(error)) {
      await appendAuditEvent(db, {
        tenantId: input.tenantId, actor: memberAuditActor(input.admin), type: "mcp.server_refused", outcome: "refused",
        subject: { type: "mcp_server", id: null }, status: error.code,
        data: { operation: input.operation, code: error.code, message: error.message.slice(0, 500) },
      });
      throw markAudited(error);
    }
    throw error;
  }
}
