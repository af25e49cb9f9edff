import type { DbTx } from "@/lib/db/client";

export type AgentsPause = { at: Date; by: string | null; reason: string | null };

/** The tenant's stop-button state for the banner and the admin page: null while agents run. */
export async function readAgentsPause(db: DbTx, tenantId: string): Promise<AgentsPause | null> {
  const tenant = await db.tenant.findUnique({
    where: { id: tenantId },
    select: { agentsPausedAt: true, agentsPausedById: true, agentsPausedReason: true },
  });
  if (!tenant?.agentsPausedAt) return null;
  const by = tenant.agentsPausedById
    ? await db.user.findUnique({ where: { id: tenant.agentsPausedById }, select: { email: true } })
    : null;
  return { at: tenant.agentsPausedAt, by: by?.email ?? null, reason: tenant.agentsPausedReason };
}
