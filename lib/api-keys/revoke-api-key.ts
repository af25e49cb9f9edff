import type { Db } from "@/lib/db/client";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { AppError } from "@/lib/errors";
import { auditBodyOf, type AuditActor } from "@/lib/audit/append-audit-event";
import { recordApiKeyRevocation } from "@/lib/db/statements/record-api-key-revocation";
import { isUuid } from "@/lib/db/uuid";
import { forgetApiKey } from "@/lib/api-keys/api-key-cache";

export type RevokeApiKeyInput = { tenantId: string; id: string; actor: AuditActor };

/**
 * Revokes a key at once (the next request with it is refused). Revoking a revoked key is a no-op
 * that reports the original time; another tenant's key is not found. This process's key cache
 * drops the key as soon as the revocation commits; every other process's drops it when the
 * notification sent in the same transaction arrives (api-key-cache.ts).
 */
export async function revokeApiKey(db: Db, input: RevokeApiKeyInput): Promise<{ id: string; revokedAt: Date }> {
  if (!isUuid(input.id)) throw new AppError("not_found", "That API key was not found.", 404);
  const key = await db.apiKey.findFirst({ where: { id: input.id, tenantId: input.tenantId }, select: { name: true, prefix: true } });
  if (!key) throw new AppError("not_found", "That API key was not found.", 404);
  const row = await recordApiKeyRevocation(db, {
    tenantId: input.tenantId, apiKeyId: input.id,
    event: auditBodyOf({
      tenantId: input.tenantId, actor: input.actor, type: "api_key.revoked", outcome: "ok", subject: { type: "api_key", id: input.id },
      data: { name: key.name, prefix: key.prefix },
    }),
  });
  if (!row) throw new AppError("not_found", "That API key was not found.", 404);
  forgetApiKey(db, row.id);
  if (row.changed) void requestSeal(db, input.tenantId);
  return { id: row.id, revokedAt: row.revokedAt };
}
