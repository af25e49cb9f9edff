import "server-only";
import { headers } from "next/headers";
import { relyingPartyOf, type RelyingParty } from "@/lib/passkeys/relying-party";
import { publicOrigins } from "@/lib/net/request-origin";

/** The console's WebAuthn relying party: its configured public URL's host and its public origins. */
export async function consoleRelyingParty(): Promise<RelyingParty> {
  return relyingPartyOf(publicOrigins(await headers()));
}
