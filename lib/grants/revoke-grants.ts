import type { Db } from "@/lib/db/client";
import { sqlTransaction, type SqlClient } from "@/lib/db/sql";
import { auditBodyOf, type AuditActor } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { AppError } from "@/lib/errors";
import { lockActiveGrants } from "@/lib/db/statements/grants/lock-active-grants";
import { revokeGrants } from "@/lib/db/statements/grants/revoke-grants";

type Revoker = AuditActor & { type: "user"; id: string };

/**
 * Revokes the tenant's active grants (one, or all for the stop button) in `tx`: each locked, so a
 * call taking it waits and then finds it revoked, and each audited. A member who may neither
 * decide actions nor administer the tenant revokes nothing.
 */
export async function revokeGrantsIn(
  tx: SqlClient,
  input: { tenantId: string; grantId: string | null; actor: Revoker; cause: "revoked" | "agents_paused"; reason?: string | null },
): Promise<{ allowed: boolean; revoked: string[] }> {
  const grants = await lockActiveGrants(tx, { tenantId: input.tenantId, grantId: input.grantId });
  // The stop button's author was judged an admin by its own statement; with no grants there is nothing to write.
  if (grants.length === 0 && input.cause === "agents_paused") return { allowed: true, revoked: [] };
  const revoked = grants.map((g) => ({
    id: g.id,
    event: auditBodyOf({
      tenantId: input.tenantId, actor: input.actor, type: "grant.revoked", outcome: "ok", subject: { type: "grant", id: g.id },
      actionId: g.sourceActionId, tool: g.tool,
      data: { grantId: g.id, cause: input.cause, usedCalls: g.usedCalls, usedTotal: Number(g.usedTotal) },
    }),
  }));
  return revokeGrants(tx, { tenantId: input.tenantId, byUserId: input.actor.id, reason: input.reason ?? null, revoked });
}

/** Revokes one grant at once: later calls under it wait for review. 404 when there is no such active grant. */
export async function revokeGrant(db: Db, input: { tenantId: string; grantId: string; actor: Revoker; reason?: string | null }): Promise<void> {
  const result = await sqlTransaction(db, (tx) => revokeGrantsIn(tx, { ...input, cause: "revoked" }));
  if (!result.allowed) throw new AppError("forbidden", "Only members who may decide actions, or admins, may revoke grants.", 403);
  if (result.revoked.length === 0) throw new AppError("not_found", "That grant was not found, or is no longer active.", 404);
  void requestSeal(db, input.tenantId);
}
