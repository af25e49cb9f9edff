import type { DbTx } from "@/lib/db/client";
import type { Role } from "@/lib/generated/prisma/enums";

export type MemberListItem = {
  membershipId: string; userId: string; email: string; name: string; roles: Role[]; disabled: boolean;
  /** Live passkeys the member can sign approvals with. */
  passkeys: number;
};

/** The tenant's members with their roles, by email. */
export async function listMembers(db: DbTx, tenantId: string): Promise<MemberListItem[]> {
  const rows = await db.membership.findMany({
    where: { tenantId },
    select: { id: true, roles: true, user: { select: { id: true, email: true, name: true, disabledAt: true, _count: { select: { passkeys: { where: { removedAt: null } } } } } } },
    orderBy: { user: { email: "asc" } },
  });
  return rows.map((m) => ({ membershipId: m.id, userId: m.user.id, email: m.user.email, name: m.user.name, roles: m.roles, disabled: m.user.disabledAt !== null,
    passkeys: m.user._count.passkeys,
  }));
}
