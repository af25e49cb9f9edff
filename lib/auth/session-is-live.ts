import type { Queryable } from "@/lib/db/sql";
import { loadActingMember, type SessionRef } from "@/lib/auth/acting-member";

/**
 * Whether the session a cookie names still counts: the same check pages and actions make
 * (loadActingMember), so next-auth's session endpoint never disagrees with them. A live session
 * of a user without memberships is still live (the pages answer 403, not "signed out").
 */
export async function sessionIsLive(db: Queryable, session: SessionRef): Promise<boolean> {
  const result = await loadActingMember(db, session);
  return result.ok || result.reason !== "signed_out";
}
