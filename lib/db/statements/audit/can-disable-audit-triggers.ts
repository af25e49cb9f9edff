import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Whether this connection's role could switch the append-only tables' triggers off: it is a
 * superuser, or owns one of them itself or through a role it belongs to. The app role cannot.
 */
export async function canDisableAuditTriggers(q: Queryable, input: { tables: readonly string[] }): Promise<boolean> {
  const [row] = await query<{ can: boolean }>(q, Prisma.sql`
    SELECT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
        OR EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                    WHERE n.nspname = 'public' AND c.relname = ANY(${input.tables as string[]}::text[])
                      AND pg_has_role(current_user, c.relowner, 'MEMBER')) AS can`);
  return row?.can ?? false;
}
