import type { Db } from "@/lib/db/client";
import { thenSeal } from "@/lib/audit/seal-audit-chain";
import { AppError } from "@/lib/errors";
import { appendAuditEvent, type AuditActor } from "@/lib/audit/append-audit-event";

export type RevokeApiKeyInput = { tenantId: string; id: string; actor: AuditActor };

/**
 * Revokes a key at once (the next request with it is refused). Revoking a revoked key is a no-op
 * that reports the original time; another tenant's key is not found.
 */
export async function revokeApiKey(db: Db, input: RevokeApiKeyInput): Promise<{ id: string; revokedAt: Date }> {
  if (!/^[0-9a-f-]{36}$/i.test(input.id)) throw new AppError("not_found", "That API key was not found.", 404);
  return thenSeal(db, input.tenantId, db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<Array<{ id: string; name: string; prefix: string; revokedAt: Date; changed: boolean }>>`
      WITH target AS (
        SELECT id, "revokedAt" IS NULL AS active FROM "ApiKey"
        WHERE id = ${input.id}::uuid AND "tenantId" = ${input.tenantId}::uuid FOR UPDATE
      )
      UPDATE "ApiKey" k SET "revokedAt" = COALESCE(k."revokedAt", date_trunc('milliseconds', now()))
      FROM target WHERE k.id = target.id
      RETURNING k.id, k.name, k.prefix, k."revokedAt", target.active AS changed`;
    const row = rows[0];
    if (!row) throw new AppError("not_found", "That API key was not found.", 404);
    if (row.changed) {
      await appendAuditEvent(tx, {
        tenantId: input.tenantId, actor: input.actor, type: "api_key.revoked", outcome: "ok", subject: { type: "api_key", id: row.id },
        data: { name: row.name, prefix: row.prefix },
      });
    }
    return { id: row.id, revokedAt: row.revokedAt };
  }));
}
