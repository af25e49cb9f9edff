import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type ScopedActionRow = {
  id: string;
  kind: "tool" | "code";
  status: string;
  payloadHash: string;
  /** Pending or approved with its window closed by the database clock, whether or not the sweeper has marked it yet. */
  expired: boolean;
};

/**
 * One action of the tenant, if `apiKeyId` is null or the action came from that key. Expiry is
 * judged by the database clock, so every process agrees on it. Null: no such action in scope.
 */
export async function readScopedAction(
  q: Queryable,
  input: { tenantId: string; actionId: string; apiKeyId: string | null },
): Promise<ScopedActionRow | null> {
  const [row] = await query<ScopedActionRow>(q, Prisma.sql`
    SELECT id, kind::text AS kind, status::text AS status, "payloadHash",
      (status IN ('pending', 'approved') AND "expiresAt" IS NOT NULL AND "expiresAt" <= now()) AS expired
    FROM "Action"
    WHERE id = ${input.actionId}::uuid AND "tenantId" = ${input.tenantId}::uuid
      AND (${input.apiKeyId}::uuid IS NULL OR "requesterApiKeyId" = ${input.apiKeyId}::uuid)`);
  return row ?? null;
}
