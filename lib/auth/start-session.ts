import type { Queryable } from "@/lib/db/sql";
import { insertSession } from "@/lib/db/statements/auth/insert-session";

/** How long a sign-in lasts, at most: the session row and the cookie's JWT expire together. */
export const SESSION_MAX_AGE_SECONDS = 8 * 60 * 60;

export type SessionMethod = "credentials" | "oidc";

/**
 * Records a new signed-in session and returns its id, which the session cookie carries. It
 * expires SESSION_MAX_AGE_SECONDS from now by the database clock, whatever the cookie says.
 */
export async function startSession(
  db: Queryable,
  input: { userId: string; method: SessionMethod; clientAddress: string | null; userAgent: string | null },
): Promise<{ id: string }> {
  const id = await insertSession(db, { ...input, userAgent: input.userAgent?.slice(0, 256) ?? null, maxAgeSeconds: SESSION_MAX_AGE_SECONDS });
  return { id };
}
