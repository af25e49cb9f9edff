import "server-only";
import { headers } from "next/headers";
import { isAppError } from "@/lib/errors";
import { relyingPartyOf, type RelyingParty } from "@/lib/passkeys/relying-party";
import { publicOrigins } from "@/lib/net/request-origin";

/** The console's WebAuthn relying party: its configured public URL's host and its public origins. */
export async function consoleRelyingParty(): Promise<RelyingParty> {
  return relyingPartyOf(publicOrigins(await headers()));
}

/**
 * The origins where the console's passkeys work, so a page opened elsewhere (127.0.0.1) can link
 * there; none when no origin has a host name (adding a passkey then says what to configure).
 */
export async function passkeyOrigins(): Promise<string[]> {
  try {
    return (await consoleRelyingParty()).origins;
  } catch (error) {
    if (isAppError(error)) return [];
    throw error;
  }
}
