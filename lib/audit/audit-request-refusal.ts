import type { AuditActor } from "@/lib/audit/append-audit-event";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { getDb } from "@/lib/db/client";
import { publicErrorOf, wasAudited } from "@/lib/errors";

/** Where a request came in: the console (cookie), the HTTP API (key) or the MCP endpoint (key). */
export type Surface = "console" | "api" | "mcp";

/** Records a refused or failed request in the caller's tenant as `<surface>.refused`, unless the domain already did. */
export async function auditRequestRefusal(input: { tenantId: string; actor: AuditActor; surface: Surface; operation: string; error: unknown }): Promise<void> {
  if (wasAudited(input.error)) return;
  const { status, body } = publicErrorOf(input.error);
  // A flood of rate-limited requests would flood the chain: the counter is their record.
  if (status === 429) return;
  try {
    await appendAuditEvent(getDb(), {
      tenantId: input.tenantId, actor: input.actor, type: `${input.surface}.refused`, outcome: status >= 500 ? "error" : "refused",
      subject: { type: input.surface, id: input.operation }, requester: input.actor.label, status: body.code,
      data: { operation: input.operation, code: body.code, message: body.message.slice(0, 500), httpStatus: status },
    });
  } catch (error) {
    console.error("[countersign] could not audit a refused request:", error);
  }
}
