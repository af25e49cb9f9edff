import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * The account a sign-in starts a session for (null: gone), share-locked until the sign-in's
 * transaction ends, and whether it may still sign in that way (`refused` null): not disabled, and —
 * for a password sign-in — still holding the password hash just verified. A password change
 * updates this row before it ends the account's sessions (change-password.ts), so it either
 * commits first, and this finds the hash gone, or waits for the sign-in and then ends the session
 * it started too.
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
