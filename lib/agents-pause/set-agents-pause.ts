import type { Db } from "@/lib/db/client";
import { sqlTransaction } from "@/lib/db/sql";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { auditBodyOf, type AuditActor } from "@/lib/audit/append-audit-event";
import { setAgentsPaused } from "@/lib/db/statements/set-agents-paused";
import { AppError } from "@/lib/errors";

export type SetAgentsPauseInput = {
  tenantId: string;
  paused: boolean;
  /** Why, shown in the banner and the audit log (a pause only). */
  reason?: string | null;
  /** The admin who pressed it. */
  actor: AuditActor & { type: "user"; id: string };
};

/**
 * The stop button. Paused, the tenant's agents may neither propose (423 `agents_paused`) nor have
 * approved actions executed (they stay approved and unused), and its tasks stop before their next
 * tool call; resumed, everything goes on from where it stopped. Every one of those checks is made
 * by the statement that would act (agent-pause-rules.ts), so the pause holds from its commit on,
 * in every process. Pausing a paused tenant (or resuming a running one) changes and audits
 * nothing.
 */
export async function setAgentsPause(db: Db, input: SetAgentsPauseInput): Promise<{ paused: boolean; pausedAt: Date | null; changed: boolean }> {
  const reason = input.paused ? (input.reason ?? "").trim().slice(0, 500) || null : null;
  const result = await sqlTransaction(db, (tx) =>
    setAgentsPaused(tx, {
      tenantId: input.tenantId, paused: input.paused, byUserId: input.actor.id, reason,
      event: (pausedSince) =>
        auditBodyOf({
          tenantId: input.tenantId, actor: input.actor, subject: { type: "tenant", id: input.tenantId }, outcome: "ok",
          ...(input.paused
            ? { type: "tenant.agents_paused", data: { reason } }
            : { type: "tenant.agents_resumed", data: { pausedSince: pausedSince?.toISOString() ?? "" } }),
        }),
    }),
  );
  if (!result) throw new AppError("not_found", "That organisation was not found.", 404);
  if (result.changed) void requestSeal(db, input.tenantId);
  return { paused: result.pausedAt !== null, pausedAt: result.pausedAt, changed: result.changed };
}
