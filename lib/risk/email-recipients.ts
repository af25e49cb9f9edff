import type { JsonValue } from "@/lib/canonical/json-value";
import { childPath } from "@/lib/canonical/json-path";

export type EmailRecipient = { path: string; address: string; domain: string };

// Keys that name who a message goes to, whatever the tool calls them.
const RECIPIENT_KEY = /^(?:to|cc|bcc|reply_?to|send_?to|to_?emails?|to_?address(?:es)?)$|recipient/i;
// Looser: for a tool whose class is external-comms, an `email`/`address` field is a destination too.
const COMMS_KEY = /email|address|^mail_?to$/i;

const ADDRESS = /([^\s@<>,;:"'()[\]]+)@(\[[^\]\s]*\]|[^\s@<>,;:"'()[\]]+)/g;

/**
 * Every email address under a recipient-like key anywhere in `args` (strings,
 * arrays of strings, `"Name <a@b>"` forms, nested `{email}` objects). Domains are
 * lower-cased without a trailing dot. With `commsKeys`, `email`/`address` keys
 * count as recipients too (for external-comms tools).
 */
export function emailRecipientsIn(args: JsonValue, opts: { commsKeys?: boolean } = {}): EmailRecipient[] {
  const out: EmailRecipient[] = [];
  const isRecipientKey = (k: string) => RECIPIENT_KEY.test(k) || (opts.commsKeys === true && COMMS_KEY.test(k));
  const visit = (v: JsonValue, path: string, underRecipientKey: boolean) => {
    if (typeof v === "string") {
      if (underRecipientKey) out.push(...addressesIn(v, path));
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => visit(item, childPath(path, i), underRecipientKey));
    } else if (v !== null && typeof v === "object") {
      for (const [k, child] of Object.entries(v)) visit(child, childPath(path, k), underRecipientKey || isRecipientKey(k));
    }
  };
  visit(args, "", false);
  return out;
}

/** All email addresses in free text (e.g. a body), with the given path. */
export function addressesIn(text: string, path: string): EmailRecipient[] {
  const found: EmailRecipient[] = [];
  for (const m of text.matchAll(ADDRESS)) {
    const domain = (m[2] ?? "").toLowerCase().replace(/\.+$/, "");
    if (domain === "" || (!domain.includes(".") && !domain.startsWith("["))) {
      // `user@localhost`-style single labels still count when they are numeric (an IP).
      if (!/^(?:0x[0-9a-f]+|\d+)$/.test(domain)) continue;
    }
    found.push({ path, address: m[0].replace(/\.+$/, ""), domain });
  }
  return found;
}

/** Domain equals one of `domains` (case-insensitive, exact: subdomains are not trusted implicitly). */
export function domainIn(domain: string, domains: readonly string[]): boolean {
  const d = domain.toLowerCase().replace(/\.$/, "");
  return domains.some((x) => x.toLowerCase().replace(/\.$/, "") === d);
}
