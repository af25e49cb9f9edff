import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/** The tenants a user is a member of, in id order. */
export async function readMemberTenantIds(q: Queryable, input: { userId: string }): Promise<string[]> {
  const rows = await query<{ tenantId: string }>(q, Prisma.sql`
    SELECT "tenantId" FROM "Membership" WHERE "userId" = ${input.userId}::uuid ORDER BY "tenantId"`);
  return rows.map((row) => row.tenantId);
}
