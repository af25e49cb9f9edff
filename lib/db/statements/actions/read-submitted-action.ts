import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { decodeStoredJson } from "@/lib/db/stored-text";
import { apiKeyIsLiveSql } from "@/lib/db/statements/api-keys/api-key-rules";

/** An action an API key submitted under an Idempotency-Key, as a replayed submit answers it. */
export type SubmittedActionRow = {
  id: string;
  /** Its state now; `expired` once its window closed by the database clock, marked or not. */
  state: string;
  requiresApproval: boolean;
  /** What the key was bound to (lib/approvals/submit-request-hash.ts). */
  requestHash: string | null;
  revision: number;
  payloadHash: string;
  expiresAt: Date | null;
  riskLevel: string;
  quorum: number;
  statusReason: string | null;
  /** The current revision's policy verdict: its rule and reason. */
  ruleId: string | null;
  policyReason: string;
  /** Its latest execution, once it has ended (null while none has, or one still runs). */
  execution: { id: string; state: "succeeded" | "failed" | "unknown"; result: Record<string, unknown> | null; isolation: string | null } | null;
};

/**
 * The action `apiKeyId` submitted under `submitKey`, if any. `keyRevoked`: the key may no longer
 * act (api-key-rules.ts), and nothing is read for it.
 */
export async function readSubmittedAction(
  q: Queryable,
  input: { tenantId: string; apiKeyId: string; submitKey: string },
): Promise<{ keyRevoked: boolean; action: SubmittedActionRow | null }> {
  const [row] = await query<{ keyLive: boolean; id: string | null; executionId: string | null; executionState: string | null; executionResult: unknown; executionIsolation: string | null } & Omit<SubmittedActionRow, "id" | "execution">>(q, Prisma.sql`
    SELECT k.live AS "keyLive", a.id,
      CASE WHEN a.status IN ('pending', 'approved') AND a."expiresAt" IS NOT NULL AND a."expiresAt" <= now() THEN 'expired'
        ELSE a.status::text END AS state,
      a."requiresApproval", a."submitRequestHash" AS "requestHash", a."currentRevision" AS revision, a."payloadHash", a."expiresAt",
      a."riskLevel"::text AS "riskLevel", a.quorum, a."statusReason",
      r."policyDecision"->>'ruleId' AS "ruleId", coalesce(r."policyDecision"->>'reason', '') AS "policyReason",
      e.id AS "executionId", e.status::text AS "executionState", e.result AS "executionResult", e.isolation AS "executionIsolation"
    FROM (SELECT ${apiKeyIsLiveSql(Prisma.sql`${input.apiKeyId}::uuid`)} AS live) k
    LEFT JOIN "Action" a ON k.live AND a."requesterApiKeyId" = ${input.apiKeyId}::uuid AND a."submitKey" = ${input.submitKey}
      AND a."tenantId" = ${input.tenantId}::uuid
    LEFT JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision"
    LEFT JOIN LATERAL (
      SELECT id, status, result, isolation FROM "Execution" x
      WHERE x."actionId" = a.id AND x.status <> 'executing'
      ORDER BY x."startedAt" DESC LIMIT 1
    ) e ON true`);
  if (!row.keyLive) return { keyRevoked: true, action: null };
  if (!row.id) return { keyRevoked: false, action: null };
  const { keyLive: _live, executionId, executionState, executionResult, executionIsolation, ...action } = row;
  return {
    keyRevoked: false,
    action: {
      ...action,
      id: row.id,
      execution: executionId
        ? {
            id: executionId,
            state: executionState as "succeeded" | "failed" | "unknown",
            result: decodeStoredJson(executionResult as Record<string, unknown> | null) ?? null,
            isolation: executionIsolation,
          }
        : null,
    },
  };
}
