import type { DbTx } from "@/lib/db/client";

/** How long a sign-in lasts, at most: the session row and the cookie's JWT expire together. */
export const SESSION_MAX_AGE_SECONDS = 8 * 60 * 60;

export type SessionMethod = "credentials" | "oidc";

/**
 * Records a new signed-in session and returns its id, which the session cookie carries. It
 * expires SESSION_MAX_AGE_SECONDS from now by the database clock, whatever the cookie says.
 */
export async function startSession(
  db: DbTx,
  input: { userId: string; method: SessionMethod; clientAddress: string | null; userAgent: string | null },
): Promise<{ id: string }> {
  const [row] = await db.$queryRaw<Array<{ id: string }>>`
    INSERT INTO "Session" ("userId", method, "expiresAt", "clientAddress", "userAgent")
    VALUES (${input.userId}::uuid, ${input.method}, now() + make_interval(secs => ${SESSION_MAX_AGE_SECONDS}),
      ${input.clientAddress}, ${input.userAgent?.slice(0, 256) ?? null})
    RETURNING id::text`;
  return row;
}
