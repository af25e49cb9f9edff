import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";

/**
 * Whether the session row `session` (an alias, or the table) is live: not ended (signed out, ended
 * elsewhere, a password change) and not expired by the database clock. The one definition: the
 * request boundary, the session list, ending sessions and lock-acting-membership.ts apply it.
 */
export function sessionRowIsLiveSql(session: Sql): Sql {
  return Prisma.sql`${session}."revokedAt" IS NULL AND ${session}."expiresAt" > statement_timestamp()`;
}

/** How recent a session's sign-in must be for it to add a passkey (a re-authentication, "sudo mode"). */
export const RECENT_SIGN_IN_SECONDS = 600;

/** Whether session row `session` was signed in within RECENT_SIGN_IN_SECONDS (database clock). */
export function sessionSignedInRecentlySql(session: Sql): Sql {
  return Prisma.sql`${session}."createdAt" > statement_timestamp() - make_interval(secs => ${RECENT_SIGN_IN_SECONDS})`;
}
