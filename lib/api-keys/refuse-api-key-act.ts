import type { Db } from "@/lib/db/client";
import { AppError, markAudited } from "@/lib/errors";
import { appendAuditEvent, type AuditActor } from "@/lib/audit/append-audit-event";
import type { AuditEventData } from "@/lib/audit/audit-event-types";
import { noLongerAdmin } from "@/lib/auth/no-longer-admin";

/**
 * An API key act its statement refused because its author is no longer an admin: audited as
 * `api_key.refused` in its own statement, and the 403 to throw.
 */
export async function refuseApiKeyAct(
  db: Db,
  input: { tenantId: string; actor: AuditActor; apiKeyId: string | null; data: Omit<AuditEventData<"api_key.refused">, "reason"> },
): Promise<AppError> {
  await appendAuditEvent(db, {
    tenantId: input.tenantId, actor: input.actor, type: "api_key.refused", outcome: "refused", subject: { type: "api_key", id: input.apiKeyId },
    data: { ...input.data, reason: "not_admin" },
  });
  return markAudited(noLongerAdmin("manage API keys"));
}
