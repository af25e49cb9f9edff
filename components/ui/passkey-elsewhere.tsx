"use client";

import { usePathname } from "next/navigation";
import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/** Where this page is open, when passkeys cannot be used there, and the same page where they can. */
export type PasskeyElsewhere = { hostname: string; ipAddress: boolean; home: string; href: string };

const IP_HOST = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]*\])$/i;

/**
 * Null where passkeys work (the page's origin is one of `origins`, the relying party's), and
 * while server-rendered; otherwise where to open this page instead. A browser refuses WebAuthn at
 * an IP address and for another site's RP id, so at 127.0.0.1 passkeys only ever fail.
 */
export function usePasskeyElsewhere(origins: readonly string[]): PasskeyElsewhere | null {
  const origin = useSyncExternalStore(subscribe, () => window.location.origin, () => null);
  const pathname = usePathname();
  if (origin === null || origins.length === 0 || origins.includes(origin)) return null;
  const here = new URL(origin);
  const home = new URL(origins[0]);
  return { hostname: here.hostname, ipAddress: IP_HOST.test(here.hostname), home: home.host, href: `${home.origin}${pathname}` };
}

/** Why passkeys do not work here, in a sentence. */
export function passkeyElsewhereText(elsewhere: PasskeyElsewhere): string {
  const why = elsewhere.ipAddress
    ? "a browser accepts passkeys only at a host name, not at an IP address"
    : `this console's passkeys belong to ${new URL(elsewhere.href).hostname}`;
  return `Passkeys cannot be used at ${elsewhere.hostname}: ${why}.`;
}

/** The reason, and a link to the same page where passkeys work. */
export function PasskeyElsewhereNote({ elsewhere }: { elsewhere: PasskeyElsewhere }) {
  return (
    <p role="note" className="rounded-md bg-amber-50 px-3 py-2 text-[0.85rem] text-amber-950">
      {passkeyElsewhereText(elsewhere)}{" "}
      <a href={elsewhere.href} className="font-medium underline">Open this page at {elsewhere.home}</a> (you sign in there separately).
    </p>
  );
}
