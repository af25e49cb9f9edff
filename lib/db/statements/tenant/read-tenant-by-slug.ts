import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/** The tenant with this slug, or null. */
export async function readTenantBySlug(q: Queryable, input: { slug: string }): Promise<{ id: string } | null> {
  const [row] = await query<{ id: string }>(q, Prisma.sql`SELECT id FROM "Tenant" WHERE slug = ${input.slug}`);
  return row ?? null;
}
