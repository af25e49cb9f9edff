import { Prisma } from "@/lib/generated/prisma/client";
import type { JsonObject } from "@/lib/canonical/json-value";
import { query, type Queryable } from "@/lib/db/sql";

/** A new tenant with version 1 of its policy, in one statement. Returns its id. */
export async function insertTenant(
  q: Queryable,
  input: { slug: string; name: string; domains: string[]; policy: JsonObject; policyComment: string },
): Promise<{ id: string }> {
  const [row] = await query<{ id: string }>(q, Prisma.sql`
    WITH tenant AS (
      INSERT INTO "Tenant" (id, slug, name, domains) VALUES (gen_random_uuid(), ${input.slug}, ${input.name}, ${input.domains}::text[])
      RETURNING id
    ),
    policy AS (
      INSERT INTO "ToolPolicy" (id, "tenantId", version, document, comment)
      SELECT gen_random_uuid(), tenant.id, 1, ${JSON.stringify(input.policy)}::jsonb, ${input.policyComment} FROM tenant
    )
    SELECT id FROM tenant`);
  return row;
}
