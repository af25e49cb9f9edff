import type { DbTx } from "@/lib/db/client";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import type { Policy } from "@/lib/policy/policy-document";
import { validatePolicy } from "@/lib/policy/validate-policy";

export type ActivePolicy = { version: number; policy: Policy; invalid: string | null };

// Policy rows are immutable (a save is a new version), so a parsed version can be cached forever.
const parsed = new Map<string, ActivePolicy>();

/** A policy that denies everything, for a tenant whose stored policy is broken: fail closed. */
const DENY_ALL: Policy = { defaults: DEFAULT_POLICY.defaults, tools: {} };

/** The tenant's policy in force: the highest version. A tenant without one gets the default. */
export async function loadActivePolicy(db: DbTx, tenantId: string): Promise<ActivePolicy> {
  const row = await db.toolPolicy.findFirst({
    where: { tenantId },
    orderBy: { version: "desc" },
    select: { id: true, version: true, document: true },
  });
  if (!row) return { version: 0, policy: DEFAULT_POLICY, invalid: null };
  const cached = parsed.get(row.id);
  if (cached) return cached;
  const result = validatePolicy(row.document);
  const active: ActivePolicy = result.ok
    ? { version: row.version, policy: result.policy, invalid: null }
    : { version: row.version, policy: DENY_ALL, invalid: result.errors.map((e) => `${e.path}: ${e.message}`).join("; ") };
  parsed.set(row.id, active);
  return active;
}
