import { isIP } from "node:net";
import { AppError } from "@/lib/errors";

/**
 * WebAuthn's relying party: the RP id is the host of the console's public URL, and assertions must
 * come from one of its public origins (lib/net/request-origin.ts).
 */
export type RelyingParty = { rpID: string; rpName: string; origins: string[] };

/**
 * The relying party of a console whose public origins are `origins` (the configured public URL
 * first). An IP address cannot be an RP id, so the first origin with a host name is used.
 */
export function relyingPartyOf(origins: Iterable<string>): RelyingParty {
  const list = [...origins];
  const named = list.find((origin) => isIP(new URL(origin).hostname.replace(/^\[|\]$/g, "")) === 0);
  if (named === undefined) {
    throw new AppError("passkey_origin", "Passkeys need the console at a host name, not an IP address: set NEXTAUTH_URL (or COUNTERSIGN_PUBLIC_ORIGINS) to one.", 503);
  }
  const rpID = new URL(named).hostname;
  // Only origins on the RP id's host (or its subdomains) can use its passkeys.
  const usable = list.filter((origin) => {
    const host = new URL(origin).hostname;
    return host === rpID || host.endsWith(`.${rpID}`);
  });
  return { rpID, rpName: "Countersign", origins: usable };
}
