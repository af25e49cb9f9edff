import type { DbTx } from "@/lib/db/client";
import { sqlQuery } from "@/lib/db/sql";
import { Prisma } from "@/lib/generated/prisma/client";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import type { Policy } from "@/lib/policy/policy-document";
import { validatePolicy } from "@/lib/policy/validate-policy";

export type ActivePolicy = { version: number; policy: Policy; invalid: string | null };

// Policy rows are immutable (a save is a new version), so a parsed version can be cached forever.
const parsed = new Map<string, ActivePolicy>();

/** A policy that denies everything, for a tenant whose stored policy is broken: fail closed. */
const DENY_ALL: Policy = { defaults: DEFAULT_POLICY.defaults, tools: {} };

async function activePolicyFor(db: DbTx, policyId: string | null, version: number | null): Promise<ActivePolicy> {
  if (!policyId || version === null) return { version: 0, policy: DEFAULT_POLICY, invalid: null };
  const cached = parsed.get(policyId);
  if (cached) return cached;
  const row = await db.toolPolicy.findUniqueOrThrow({ where: { id: policyId }, select: { document: true } });
  const result = validatePolicy(row.document);
  const active: ActivePolicy = result.ok
    ? { version, policy: result.policy, invalid: null }
    : { version, policy: DENY_ALL, invalid: result.errors.map((e) => `${e.path}: ${e.message}`).join("; ") };
  parsed.set(policyId, active);
  return active;
}

/** The tenant's policy in force: the highest version. A tenant without one gets the default. */
export async function loadActivePolicy(db: DbTx, tenantId: string): Promise<ActivePolicy> {
  const head = await db.toolPolicy.findFirst({ where: { tenantId }, orderBy: { version: "desc" }, select: { id: true, version: true } });
  return activePolicyFor(db, head?.id ?? null, head?.version ?? null);
}

/**
 * The tenant's own domains and its policy in force, in one round trip (the proposal hot path);
 * the policy document itself is read only the first time a version is seen. Null: no such tenant.
 */
export async function loadTenantPolicy(
  db: DbTx,
  tenantId: string,
): Promise<{ tenant: { id: string; domains: string[] }; policy: ActivePolicy } | null> {
  const [row] = await sqlQuery<{ id: string; domains: string[]; policyId: string | null; version: number | null }>(db, Prisma.sql`
    SELECT t.id, t.domains, p.id AS "policyId", p.version
    FROM "Tenant" t
    LEFT JOIN LATERAL (SELECT id, version FROM "ToolPolicy" WHERE "tenantId" = t.id ORDER BY version DESC LIMIT 1) p ON true
    WHERE t.id = ${tenantId}::uuid`);
  if (!row) return null;
  return { tenant: { id: row.id, domains: row.domains }, policy: await activePolicyFor(db, row.policyId, row.version) };
}

type TenantPolicy = { tenant: { id: string; domains: string[] }; policy: ActivePolicy };

// The proposal hot path reads a tenant's domains and policy version from this per-process cache;
// the proposal's write statement re-checks both (write-proposals.ts) and writes nothing if either
// changed, and the caller then reloads and assesses again.
const tenants = new Map<string, TenantPolicy>();
const MAX_CACHED_TENANTS = 10_000;

export async function cachedTenantPolicy(db: DbTx, tenantId: string): Promise<TenantPolicy | null> {
  const cached = tenants.get(tenantId);
  if (cached) return cached;
  const loaded = await loadTenantPolicy(db, tenantId);
  if (loaded) {
    if (tenants.size >= MAX_CACHED_TENANTS) tenants.clear();
    tenants.set(tenantId, loaded);
  }
  return loaded;
}

export function forgetTenantPolicy(tenantId: string): void {
  tenants.delete(tenantId);
}
