import type { Db } from "@/lib/db/client";
import { AppError, markAudited } from "@/lib/errors";
import { appendAuditEvent, type AuditActor } from "@/lib/audit/append-audit-event";
import { noLongerAdmin } from "@/lib/auth/no-longer-admin";

/**
 * A webhook act its statement refused because its author is no longer an admin: audited as
 * `webhook.refused` in its own statement, and the 403 to throw.
 */
export async function refuseWebhookAct(
  db: Db,
  input: { tenantId: string; actor: AuditActor; subject: { type: "webhook" | "webhook_delivery"; id: string | null }; url: string; operation: "register" | "rotate" | "remove" | "redeliver" },
): Promise<AppError> {
  await appendAuditEvent(db, {
    tenantId: input.tenantId, actor: input.actor, type: "webhook.refused", outcome: "refused", subject: input.subject,
    data: { url: input.url.slice(0, 500), reason: "not_admin", operation: input.operation },
  });
  return markAudited(noLongerAdmin("manage webhooks"));
}
