import type { Db } from "@/lib/db/client";
import { sqlTransaction } from "@/lib/db/sql";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { appendAuditEvent, auditBodyOf, type AuditActor } from "@/lib/audit/append-audit-event";
import { setAgentsPaused } from "@/lib/db/statements/tenant/set-agents-paused";
import { AppError, markAudited } from "@/lib/errors";
import { noLongerAdmin } from "@/lib/auth/no-longer-admin";
import { revokeGrantsIn } from "@/lib/grants/revoke-grants";

export type SetAgentsPauseInput = {
  tenantId: string;
  paused: boolean;
  /** Why, shown in the banner and the audit log (a pause only). */
  reason?: string | null;
  /** The admin who pressed it. */
  actor: AuditActor & { type: "user"; id: string };
};

/**
 * The stop button: paused, the tenant's agents may not propose (423 `agents_paused`), approved
 * actions stay unexecuted and tasks stop before their next tool call; resumed, all goes on. Held by
 * the statements that would act (agent-pause-rules.ts). A no-op changes and audits nothing; one no
 * longer an admin is refused (403, audited).
 */
export async function setAgentsPause(db: Db, input: SetAgentsPauseInput): Promise<{ paused: boolean; pausedAt: Date | null; changed: boolean }> {
  const reason = input.paused ? (input.reason ?? "").trim().slice(0, 500) || null : null;
  const result = await sqlTransaction(db, async (tx) => {
    const changed = await setAgentsPaused(tx, {
      tenantId: input.tenantId, paused: input.paused, byUserId: input.actor.id, reason,
      event: (pausedSince) =>
        auditBodyOf({
          tenantId: input.tenantId, actor: input.actor, subject: { type: "tenant", id: input.tenantId }, outcome: "ok",
          ...(input.paused
            ? { type: "tenant.agents_paused", data: { reason } }
            : { type: "tenant.agents_resumed", data: { pausedSince: pausedSince?.toISOString() ?? "" } }),
        }),
    });
    // The stop button also ends every standing grant, in the same transaction.
    if (changed.outcome === "done" && input.paused) await revokeGrantsIn(tx, { tenantId: input.tenantId, grantId: null, actor: input.actor, cause: "agents_paused", reason });
    return changed;
  });
  if (result.outcome === "not_found") throw new AppError("not_found", "That organisation was not found.", 404);
  // Resuming, or pausing, is an admin's act like any other: one no longer an admin does neither.
  if (result.outcome === "not_admin") {
    await appendAuditEvent(db, {
      tenantId: input.tenantId, actor: input.actor, type: "tenant.agents_pause_refused", outcome: "refused", subject: { type: "tenant", id: input.tenantId },
      data: { operation: input.paused ? "pause" : "resume", reason: "not_admin" },
    });
    throw markAudited(noLongerAdmin("pause or resume agents"));
  }
  if (result.changed || input.paused) void requestSeal(db, input.tenantId);
  return { paused: result.pausedAt !== null, pausedAt: result.pausedAt, changed: result.changed };
}
