/**
 * Who the passkeys belong to (WebAuthn's relying party): the RP id is the host name of the
 * console's public URL, and an assertion must come from one of the console's public origins
 * (lib/server/request-origin.ts). Passed to the passkey functions as plain data.
 */
export type RelyingParty = { rpID: string; rpName: string; origins: string[] };

/** The relying party of a console whose public origins are `origins` (the configured public URL first). */
export function relyingPartyOf(origins: Iterable<string>): RelyingParty {
  const list = [...origins];
  const first = list[0];
  if (first === undefined) throw new Error("The console has no public origin (set NEXTAUTH_URL).");
  const rpID = new URL(first).hostname;
  // Only origins on the RP id's host (or its subdomains) can use its passkeys.
  const usable = list.filter((origin) => {
    const host = new URL(origin).hostname;
    return host === rpID || host.endsWith(`.${rpID}`);
  });
  return { rpID, rpName: "Countersign", origins: usable };
}
