import type { Queryable } from "@/lib/db/sql";
import { readGrants } from "@/lib/db/statements/grants/read-grants";
import { grantAmount, grantArgumentName } from "@/lib/grants/grant-amount";

/** A grant as the admin page lists it. */
export type GrantListing = {
  id: string;
  tool: string;
  sourceActionId: string;
  apiKeyId: string | null;
  /** Whose calls it covers: the key's name, or the task. */
  scope: string;
  description: string;
  constraint: string;
  calls: string;
  total: string | null;
  state: "active" | "expired" | "revoked";
  expiresAt: string;
};

const MAX_LISTED = 200;

/**
 * The tenant's standing grants, those in force first and grouped by key; with `action`, those made
 * from that action and the one that allowed it.
 */
export async function listGrants(q: Queryable, tenantId: string, action?: { id: string; grantId: string | null }): Promise<GrantListing[]> {
  const only = action ? { actionId: action.id, grantIds: action.grantId ? [action.grantId] : [] } : {};
  const rows = await readGrants(q, { tenantId, limit: MAX_LISTED, ...only });
  return rows.map((g) => ({
    id: g.id, tool: g.tool, sourceActionId: g.sourceActionId, apiKeyId: g.apiKeyId,
    scope: g.apiKeyId ? `key ${g.keyName ?? g.apiKeyId}` : `task ${g.taskId}`,
    description: g.description, constraint: g.constraint,
    calls: g.maxCalls === null ? `${g.usedCalls} used` : `${g.usedCalls} of ${g.maxCalls}`,
    total: g.maxTotal === null || g.totalArgument === null ? null
      : `${grantArgumentName(g.totalArgument)}: ${grantAmount(g.totalArgument, g.usedTotal)} of ${grantAmount(g.totalArgument, g.maxTotal)}`,
    state: g.status === "revoked" ? "revoked" : g.expired ? "expired" : "active",
    expiresAt: g.expiresAt.toISOString(),
  }));
}
