import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { apiKeyIsLiveSql } from "@/lib/db/statements/api-keys/api-key-rules";

export type ScopedActionRow = {
  id: string;
  kind: "tool" | "code";
  status: string;
  payloadHash: string;
  /** The revision `payloadHash` is of, read in the same statement as the status. */
  currentRevision: number;
  statusReason: string | null;
  expiresAt: Date | null;
  /** Pending or approved with its window closed by the database clock, whether or not the sweeper has marked it yet. */
  expired: boolean;
};

/**
 * One action of the tenant, if `apiKeyId` is null or the action came from that key. Expiry is
 * judged by the database clock, so every process agrees on it. `action` null: no such action in
 * scope. `keyRevoked`: the key may no longer act (api-key-rules.ts), and no action is read for it —
 * whatever a process still remembers about the key, this statement is the one every agent request
 * about an action passes.
 */
export async function readScopedAction(
  q: Queryable,
  input: { tenantId: string; actionId: string; apiKeyId: string | null },
): Promise<{ keyRevoked: boolean; action: ScopedActionRow | null }> {
  const [row] = await query<ScopedActionRow & { keyLive: boolean }>(q, Prisma.sql`
    SELECT k.live AS "keyLive", a.id, a.kind::text AS kind, a.status::text AS status, a."payloadHash", a."currentRevision",
      a."statusReason", a."expiresAt",
      (a.status IN ('pending', 'approved') AND a."expiresAt" IS NOT NULL AND a."expiresAt" <= now()) AS expired
    FROM (SELECT (${input.apiKeyId}::uuid IS NULL OR ${apiKeyIsLiveSql(Prisma.sql`${input.apiKeyId}::uuid`)}) AS live) k
    LEFT JOIN "Action" a ON k.live AND a.id = ${input.actionId}::uuid AND a."tenantId" = ${input.tenantId}::uuid
      AND (${input.apiKeyId}::uuid IS NULL OR a."requesterApiKeyId" = ${input.apiKeyId}::uuid)`);
  if (!row.keyLive) return { keyRevoked: true, action: null };
  const { keyLive: _, ...action } = row;
  return { keyRevoked: false, action: action.id ? action : null };
}
