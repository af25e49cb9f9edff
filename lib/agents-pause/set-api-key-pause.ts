import { sqlTransaction } from "@/lib/db/sql";
import type { Db } from "@/lib/db/client";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { auditBodyOf, type AuditActor } from "@/lib/audit/append-audit-event";
import { setApiKeyPaused } from "@/lib/db/statements/api-keys/set-api-key-paused";
import { isUuid } from "@/lib/db/uuid";
import { AppError } from "@/lib/errors";
import { refuseApiKeyAct } from "@/lib/api-keys/refuse-api-key-act";

/**
 * The stop button for one agent: a paused key still authenticates and reads, but its proposals are
 * refused (423) and its approved actions wait (agent-pause-rules.ts). Another tenant's key is not
 * found; a no-op changes nothing; one no longer an admin is refused (403, audited).
 */
export async function setApiKeyPause(
  db: Db,
  input: { tenantId: string; id: string; paused: boolean; actor: AuditActor & { type: "user"; id: string } },
): Promise<{ id: string; pausedAt: Date | null; changed: boolean }> {
  if (!isUuid(input.id)) throw new AppError("not_found", "That API key was not found.", 404);
  const key = await db.apiKey.findFirst({ where: { id: input.id, tenantId: input.tenantId }, select: { name: true, prefix: true } });
  if (!key) throw new AppError("not_found", "That API key was not found.", 404);
  const row = await sqlTransaction(db, (tx) => setApiKeyPaused(tx, {
    tenantId: input.tenantId, apiKeyId: input.id, paused: input.paused, byUserId: input.actor.id,
    event: auditBodyOf({
      tenantId: input.tenantId, actor: input.actor, type: input.paused ? "api_key.paused" : "api_key.resumed", outcome: "ok",
      subject: { type: "api_key", id: input.id }, data: { name: key.name, prefix: key.prefix },
    }),
  }));
  if (row.outcome === "not_admin") {
    throw await refuseApiKeyAct(db, {
      tenantId: input.tenantId, actor: input.actor, apiKeyId: input.id, data: { operation: input.paused ? "pause" : "resume", name: key.name, prefix: key.prefix },
    });
  }
  if (row.outcome === "not_found") throw new AppError("not_found", "That API key was not found.", 404);
  if (row.changed) void requestSeal(db, input.tenantId);
  return { id: row.id, pausedAt: row.pausedAt, changed: row.changed };
}
