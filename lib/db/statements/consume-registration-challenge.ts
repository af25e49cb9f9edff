import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Uses up a registration challenge, once: it must have been issued to this member in this
 * session and not have expired (database clock). False: none such (unknown, used, expired, or
 * another member's or session's).
 */
export async function consumeRegistrationChallenge(
  q: Queryable,
  input: { userId: string; sessionId: string; challenge: string },
): Promise<boolean> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    UPDATE "WebAuthnChallenge" SET "usedAt" = now()
    WHERE challenge = ${input.challenge} AND purpose = 'registration' AND "userId" = ${input.userId}::uuid
      AND "sessionId" = ${input.sessionId}::uuid AND "usedAt" IS NULL AND "expiresAt" > now()
    RETURNING id`);
  return rows.length === 1;
}
