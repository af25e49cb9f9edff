import { Prisma } from "@/lib/generated/prisma/client";
import type { Role } from "@/lib/generated/prisma/enums";
import { query, type Queryable } from "@/lib/db/sql";

/** Makes a user a member of a tenant with `roles`. */
export async function insertMembership(q: Queryable, input: { tenantId: string; userId: string; roles: readonly Role[] }): Promise<void> {
  await query(q, Prisma.sql`
    INSERT INTO "Membership" (id, "tenantId", "userId", roles)
    VALUES (gen_random_uuid(), ${input.tenantId}::uuid, ${input.userId}::uuid, ${[...input.roles]}::"Role"[])`);
}
