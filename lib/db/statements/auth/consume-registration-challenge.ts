import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { sessionRowIsLiveSql, sessionSignedInRecentlySql } from "@/lib/db/statements/auth/session-rules";

export type RegistrationChallengeUse = "used" | "no_challenge" | "session_ended" | "sign_in_again";

/**
 * Uses up a registration challenge once: issued to this member in this session, unexpired
 * (database clock), the session live — share-locked until the passkey is stored — and signed in
 * recently (sessionSignedInRecentlySql): a passkey outlives sessions and signs approvals, so a
 * session taken long after its sign-in cannot add one.
 */
export async function consumeRegistrationChallenge(
  q: Queryable,
  input: { userId: string; sessionId: string; challenge: string },
): Promise<RegistrationChallengeUse> {
  const [row] = await query<{ live: boolean; recent: boolean; used: boolean }>(q, Prisma.sql`
    WITH session AS (
      SELECT ${sessionSignedInRecentlySql(Prisma.sql`s`)} AS recent FROM "Session" s
      WHERE s.id = ${input.sessionId}::uuid AND s."userId" = ${input.userId}::uuid AND ${sessionRowIsLiveSql(Prisma.sql`s`)}
      FOR SHARE OF s
    ),
    used AS (
      UPDATE "WebAuthnChallenge" SET "usedAt" = now()
      WHERE challenge = ${input.challenge} AND purpose = 'registration' AND "userId" = ${input.userId}::uuid
        AND "sessionId" = ${input.sessionId}::uuid AND "usedAt" IS NULL AND "expiresAt" > now()
        AND EXISTS (SELECT 1 FROM session WHERE recent)
      RETURNING id
    )
    SELECT EXISTS (SELECT 1 FROM session) AS live, EXISTS (SELECT 1 FROM session WHERE recent) AS recent, EXISTS (SELECT 1 FROM used) AS used`);
  if (!row.live) return "session_ended";
  if (!row.recent) return "sign_in_again";
  return row.used ? "used" : "no_challenge";
}
