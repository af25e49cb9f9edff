import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { clientAddressFromHeaders } from "@/lib/auth/client-address";
import { signInWithPassword, type SignInRefusal } from "@/lib/auth/sign-in";
import { startSignedInSession } from "@/lib/auth/start-signed-in-session";

const CredentialsSchema = z.strictObject({
  email: z.string().trim().email().max(320),
  password: z.string().min(1).max(1024),
  // next-auth posts these alongside the fields.
  csrfToken: z.string().optional(),
  callbackUrl: z.string().optional(),
  json: z.string().optional(),
  redirect: z.string().optional(),
});

type RequestHeaders = Parameters<typeof clientAddressFromHeaders>[0];

/**
 * next-auth's credentials sign-in: the password check (signInWithPassword), then the session and
 * its `auth.signed_in` events in one transaction, only if the account still holds that password
 * and is not disabled (else `invalid`, audited as `password_changed` or `disabled`). Events that
 * cannot be written refuse the sign-in as `unrecorded`.
 */
export async function authorizeCredentials(
  db: Db,
  credentials: unknown,
  headers: RequestHeaders,
): Promise<{ ok: true; userId: string; sessionId: string } | { ok: false; reason: SignInRefusal }> {
  const parsed = CredentialsSchema.safeParse(credentials ?? {});
  if (!parsed.success) return { ok: false, reason: "invalid" };
  const clientAddress = clientAddressFromHeaders(headers);
  const result = await signInWithPassword(db, { email: parsed.data.email, password: parsed.data.password, clientAddress });
  if (!result.ok) return result;
  try {
    const userAgent = headers instanceof Headers ? headers.get("user-agent") : headers?.["user-agent"];
    const session = await startSignedInSession(db, {
      userId: result.userId, method: "credentials", verifiedPasswordHash: result.passwordHash, clientAddress,
      userAgent: Array.isArray(userAgent) ? userAgent.join(" ") : (userAgent ?? null),
    });
    // The password changed, or the account was disabled, after the password was checked (audited there).
    if (!session.started) return { ok: false, reason: "invalid" };
    return { ok: true, userId: result.userId, sessionId: session.sessionId };
  } catch (error) {
    console.error(`[countersign] refused a sign-in that could not be recorded: ${(error as Error).message}`);
    return { ok: false, reason: "unrecorded" };
  }
}
