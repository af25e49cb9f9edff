import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type WebAuthnChallengeInput = {
  tenantId: string;
  userId: string;
  sessionId: string;
  purpose: "registration" | "approval";
  challenge: string;
  actionId: string | null;
  revisionId: string | null;
  receipt: string | null;
  receiptHash: string | null;
  ttlSeconds: number;
};

/**
 * Stores a challenge the server issues, bound to the member and session, valid for `ttlSeconds`
 * (database clock); the same statement drops this member's challenges that lapsed over an hour ago.
 */
export async function insertWebAuthnChallenge(q: Queryable, input: WebAuthnChallengeInput): Promise<{ id: string; expiresAt: Date }> {
  const [row] = await query<{ id: string; expiresAt: Date }>(q, Prisma.sql`
    WITH lapsed AS (
      DELETE FROM "WebAuthnChallenge" WHERE "userId" = ${input.userId}::uuid AND "expiresAt" < now() - interval '1 hour'
    )
    INSERT INTO "WebAuthnChallenge" (id, "tenantId", "userId", "sessionId", purpose, challenge, "actionId", "revisionId", receipt, "receiptHash", "expiresAt")
    VALUES (gen_random_uuid(), ${input.tenantId}::uuid, ${input.userId}::uuid, ${input.sessionId}::uuid, ${input.purpose}, ${input.challenge},
      ${input.actionId}::uuid, ${input.revisionId}::uuid, ${input.receipt}, ${input.receiptHash}, now() + make_interval(secs => ${input.ttlSeconds}))
    RETURNING id, "expiresAt"`);
  return row;
}
