import type { Queryable } from "@/lib/db/sql";
import { readPolicyDocument, readTenantPolicy, type ActiveGrant } from "@/lib/db/statements/tenant/read-tenant-policy";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import type { Policy } from "@/lib/policy/policy-document";
import { checkPolicy } from "@/lib/policy/check-policy";

export type ActivePolicy = { version: number; policy: Policy; invalid: string | null };
/** The tenant's standing grants in force when read, and the version the proposal's statement checks. */
export type TenantGrants = { version: number; active: ActiveGrant[] };
export type TenantPolicy = { tenant: { id: string; domains: string[] }; policy: ActivePolicy; grants: TenantGrants };

// Policy rows are immutable (a save is a new version), so a parsed version can be kept; one check
// per version, shared by the proposals that arrive while it runs.
const parsed = new Map<string, Promise<ActivePolicy>>();
const MAX_PARSED = 1_024;

/** A policy that denies everything, for a tenant whose stored policy is broken: fail closed. */
const DENY_ALL: Policy = { defaults: DEFAULT_POLICY.defaults, tools: {} };

function activePolicyFor(q: Queryable, policyId: string | null, version: number | null): Promise<ActivePolicy> {
  if (!policyId || version === null) return Promise.resolve({ version: 0, policy: DEFAULT_POLICY, invalid: null });
  const cached = parsed.get(policyId);
  if (cached) return cached;
  if (parsed.size >= MAX_PARSED) parsed.clear();
  // Stored versions are read as they were saved: a rule naming a role that may not decide is
  // refused when it is saved, and evaluated as naming nobody (evaluate-policy.ts).
  const checking = readPolicyDocument(q, policyId)
    .then((document) => checkPolicy(document, { forSave: false }))
    .then((result): ActivePolicy =>
      result.ok
        ? { version, policy: result.policy, invalid: null }
        : { version, policy: DENY_ALL, invalid: result.errors.map((e) => `${e.path}: ${e.message}`).join("; ") },
    );
  parsed.set(policyId, checking);
  // A failed read or check is not kept: the next proposal tries again.
  checking.catch(() => {
    if (parsed.get(policyId) === checking) parsed.delete(policyId);
  });
  return checking;
}

/**
 * The tenant's own domains and its policy in force, in one round trip; the policy document itself
 * is read only the first time a version is seen. Null: no such tenant.
 */
export async function loadTenantPolicy(q: Queryable, tenantId: string): Promise<TenantPolicy | null> {
  const row = await readTenantPolicy(q, tenantId);
  if (!row) return null;
  return {
    tenant: { id: row.id, domains: row.domains }, policy: await activePolicyFor(q, row.policyId, row.version),
    grants: { version: row.grantsVersion, active: row.grants },
  };
}

// The proposal hot path reads a tenant's domains and policy version from this per-process cache;
// the proposal's write statement re-checks both (write-proposals.ts) and writes nothing if either
// changed, and the caller then reloads and assesses again. So the cache never decides anything.
const tenants = new Map<string, TenantPolicy>();
const MAX_CACHED_TENANTS = 10_000;

export async function cachedTenantPolicy(q: Queryable, tenantId: string): Promise<TenantPolicy | null> {
  const cached = tenants.get(tenantId);
  if (cached) return cached;
  const loaded = await loadTenantPolicy(q, tenantId);
  if (loaded) {
    if (tenants.size >= MAX_CACHED_TENANTS) tenants.clear();
    tenants.set(tenantId, loaded);
  }
  return loaded;
}

export function forgetTenantPolicy(tenantId: string): void {
  tenants.delete(tenantId);
}
