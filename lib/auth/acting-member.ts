import type { DbTx } from "@/lib/db/client";
import type { Role } from "@/lib/generated/prisma/enums";

export type TenantMembership = { tenantId: string; slug: string; name: string; roles: Role[] };

/** Who is acting, in which tenant, with which roles — always read from the database. */
export type ActingMember = {
  user: { id: string; email: string; name: string };
  tenant: { id: string; slug: string; name: string; domains: string[] };
  roles: Role[];
  memberships: TenantMembership[];
};

export type ActingMemberResult =
  | { ok: true; member: ActingMember }
  | { ok: false; reason: "no_user" | "no_membership" | "not_a_member" };

/**
 * Loads the acting member for a signed-in user id and the tenant they chose (cookie or URL).
 * With no choice, the first membership by tenant name is used. A chosen tenant the user does not
 * belong to is refused, never silently replaced.
 */
export async function loadActingMember(
  db: DbTx,
  userId: string,
  chosenTenant: { id?: string | null; slug?: string | null } = {},
): Promise<ActingMemberResult> {
  const user = await db.user.findFirst({
    where: { id: userId, disabledAt: null },
    select: {
      id: true,
      email: true,
      name: true,
      memberships: {
        select: { roles: true, tenant: { select: { id: true, slug: true, name: true, domains: true } } },
        orderBy: { tenant: { name: "asc" } },
      },
    },
  });
  if (!user) return { ok: false, reason: "no_user" };
  const usable = user.memberships.filter((m) => m.roles.length > 0);
  if (usable.length === 0) return { ok: false, reason: "no_membership" };

  const wanted = chosenTenant.id ?? chosenTenant.slug;
  const chosen = wanted
    ? usable.find((m) => m.tenant.id === chosenTenant.id || m.tenant.slug === chosenTenant.slug)
    : usable[0];
  if (!chosen) return { ok: false, reason: "not_a_member" };

  return {
    ok: true,
    member: {
      user: { id: user.id, email: user.email, name: user.name },
      tenant: chosen.tenant,
      roles: chosen.roles,
      memberships: usable.map((m) => ({ tenantId: m.tenant.id, slug: m.tenant.slug, name: m.tenant.name, roles: m.roles })),
    },
  };
}
