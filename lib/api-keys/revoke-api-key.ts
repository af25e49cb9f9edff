import { sqlTransaction } from "@/lib/db/sql";
import type { Db } from "@/lib/db/client";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { AppError } from "@/lib/errors";
import { auditBodyOf, type AuditActor } from "@/lib/audit/append-audit-event";
import { recordApiKeyRevocation } from "@/lib/db/statements/api-keys/record-api-key-revocation";
import { isUuid } from "@/lib/db/uuid";
import { forgetApiKey } from "@/lib/api-keys/api-key-cache";
import { refuseApiKeyAct } from "@/lib/api-keys/refuse-api-key-act";

export type RevokeApiKeyInput = { tenantId: string; id: string; actor: AuditActor & { type: "user"; id: string } };

/**
 * Revokes a key at once; a revoked key reports its original time, another tenant's is not found.
 * Every process's cache drops it (api-key-cache.ts). One no longer an admin is refused (403, audited).
 */
export async function revokeApiKey(db: Db, input: RevokeApiKeyInput): Promise<{ id: string; revokedAt: Date }> {
  if (!isUuid(input.id)) throw new AppError("not_found", "That API key was not found.", 404);
  const key = await db.apiKey.findFirst({ where: { id: input.id, tenantId: input.tenantId }, select: { name: true, prefix: true } });
  if (!key) throw new AppError("not_found", "That API key was not found.", 404);
  const row = await sqlTransaction(db, (tx) => recordApiKeyRevocation(tx, {
    tenantId: input.tenantId, apiKeyId: input.id, byUserId: input.actor.id,
    event: auditBodyOf({
      tenantId: input.tenantId, actor: input.actor, type: "api_key.revoked", outcome: "ok", subject: { type: "api_key", id: input.id },
      data: { name: key.name, prefix: key.prefix },
    }),
  }));
  // A revocation too is an admin's act: one no longer an admin revokes nothing (the rule is the same for every admin act).
  if (row.outcome === "not_admin") {
    throw await refuseApiKeyAct(db, { tenantId: input.tenantId, actor: input.actor, apiKeyId: input.id, data: { operation: "revoke", name: key.name, prefix: key.prefix } });
  }
  if (row.outcome === "not_found") throw new AppError("not_found", "That API key was not found.", 404);
  forgetApiKey(db, row.id);
  if (row.changed) void requestSeal(db, input.tenantId);
  return { id: row.id, revokedAt: row.revokedAt };
}
