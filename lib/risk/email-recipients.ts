import type { JsonValue } from "@/lib/canonical/json-value";
import { childPath } from "@/lib/canonical/json-path";

export type EmailRecipient = { path: string; address: string; domain: string };

// Keys that name who a message goes to, whatever the tool calls them.
const RECIPIENT_KEY = /^(?:to|cc|bcc|reply_?to|send_?to|to_?emails?|to_?address(?:es)?)$|recipient/i;
// Looser: for a tool whose class is external-comms, an `email`/`address` field is a destination too.
const COMMS_KEY = /email|address|^mail_?to$/i;

// A run of the characters a local part or a domain may hold (sticky: read from a given index).
const ADDRESS_RUN = /[^\s@<>,;:"'()[\]]+/y;
// The inside of a `[...]` domain literal, up to its `]` (or the whitespace that leaves it unclosed).
const BRACKET_BODY = /[^\]\s]*/y;

/**
 * Every email address under a recipient-like key anywhere in `args` (strings, arrays, `"Name <a@b>"`,
 * nested `{email}` objects), domains lower-cased without a trailing dot. `commsKeys`: `email` and
 * `address` keys count too (external-comms tools).
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
  for (const m of addressMatches(text)) {
    const domain = m.domain.toLowerCase().replace(TRAILING_DOTS, "");
    if (domain === "" || (!domain.includes(".") && !domain.startsWith("["))) {
      // `user@localhost`-style single labels still count when they are numeric (an IP).
      if (!/^(?:0x[0-9a-f]+|\d+)$/.test(domain)) continue;
    }
    found.push({ path, address: m.address.replace(TRAILING_DOTS, ""), domain });
  }
  return found;
}

// The lookbehind lets only the first dot of a run try to reach the end (linear, not one try per dot).
const TRAILING_DOTS = /(?<!\.)\.+$/;

/**
 * Each `local@domain` in `text`, left to right, in one forward pass reading each character a
 * bounded number of times (a regex retrying every start of a long run without `@` is quadratic).
 */
function* addressMatches(text: string): Generator<{ address: string; domain: string }> {
  // An unclosed `[` scans to the next whitespace; one that starts before there fails the same way.
  let unclosedBracketUntil = -1;
  let i = 0;
  while (i < text.length) {
    const at = runEnd(ADDRESS_RUN, text, i);
    if (at === i) {
      i++;
      continue;
    }
    if (text[at] !== "@") {
      i = at;
      continue;
    }
    let end = -1;
    if (text[at + 1] === "[") {
      if (at + 1 >= unclosedBracketUntil) {
        const close = runEnd(BRACKET_BODY, text, at + 2);
        if (text[close] === "]") end = close + 1;
        else unclosedBracketUntil = close;
      }
    } else {
      const domainEnd = runEnd(ADDRESS_RUN, text, at + 1);
      if (domainEnd > at + 1) end = domainEnd;
    }
    if (end === -1) {
      i = at + 1;
      continue;
    }
    yield { address: text.slice(i, end), domain: text.slice(at + 1, end) };
    i = end;
  }
}

/** Where the run `sticky` matches from `start` ends (`start` itself when it does not match). */
function runEnd(sticky: RegExp, text: string, start: number): number {
  sticky.lastIndex = start;
  return sticky.test(text) ? sticky.lastIndex : start;
}

/** Domain equals one of `domains` (case-insensitive, exact: subdomains are not trusted implicitly). */
export function domainIn(domain: string, domains: readonly string[]): boolean {
  const d = domain.toLowerCase().replace(/\.$/, "");
  return domains.some((x) => x.toLowerCase().replace(/\.$/, "") === d);
}
