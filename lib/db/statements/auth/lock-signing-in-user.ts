import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * The account a sign-in starts a session for (null: gone), share-locked until the sign-in's
 * transaction ends, and whether it may still sign in (`refused` null): not disabled and, for a
 * password, still holding the hash just verified. A password change updates this row before ending
 * the sessions (change-password.ts), so it commits first or also ends the session started here.
 */
export async function lockSigningInUser(
  q: Queryable,
  input: { userId: string; verifiedPasswordHash: string | null },
): Promise<{ email: string; refused: "disabled" | "password_changed" | null } | null> {
  const [row] = await query<{ email: string; disabled: boolean; passwordChanged: boolean }>(q, Prisma.sql`
    SELECT email, "disabledAt" IS NOT NULL AS disabled,
      (${input.verifiedPasswordHash}::text IS NOT NULL AND "passwordHash" IS DISTINCT FROM ${input.verifiedPasswordHash}::text) AS "passwordChanged"
    FROM "User" WHERE id = ${input.userId}::uuid
    FOR SHARE`);
  if (!row) return null;
  return { email: row.email, refused: row.disabled ? "disabled" : row.passwordChanged ? "password_changed" : null };
}
