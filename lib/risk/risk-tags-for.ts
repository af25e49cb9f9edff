import { domainToASCII } from "node:url";
import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";
import { childPath } from "@/lib/canonical/json-path";
import { deceptiveTextTags, escapeNonAscii } from "./deceptive-text";
import { detectInjection, normalizeForMatching } from "./detect-injection";
import { quoteForReason } from "./display-text";
import { addressesIn, domainIn, emailRecipientsIn, type EmailRecipient } from "./email-recipients";
import { ipLiteralForm, isIpLiteral } from "./ip-literal";
import { boundedPath, RISK_RANK, type RiskLevel, type RiskTag } from "./risk-tag";
import { SubstringIndex } from "./substring-index";
import { countsByKind, listed, MORE_TAGS } from "./listed";

/** A tool's classes feed risk tags: what kind of effect it has on the world (lib/tools/tool.ts). */
export const TOOL_CLASSES = ["read", "write", "irreversible", "financial", "external-comms", "code-exec", "pii"] as const;
export type ToolClass = (typeof TOOL_CLASSES)[number];

export type ScanFindingInput = { rule: string; line: number; message: string; severity: RiskLevel };

export type RiskInput = {
  tool: string;
  toolClass: ToolClass[];
  args: JsonObject;
  /** The agent's stated reason, checked for hidden and deceptive text like the arguments. */
  reason?: string;
  context: {
    customerVerifiedDomains?: string[];
    tenantDomains?: string[];
    /** Amounts above this (minor units) are flagged. Default DEFAULT_AMOUNT_THRESHOLD_MINOR. */
    amountThresholdMinor?: number;
    /** Strings that came from untrusted tool output (customer notes, email bodies, web pages…). */
    untrustedValues?: string[];
    /** Hosts (and their subdomains) that URLs may point to without a tag, besides the domains above. */
    knownHosts?: string[];
  };
  scanFindings?: ScanFindingInput[];
  /** Arguments that contradict the state they rest on (a tool's stateChecks): blocking, so critical. */
  stateFindings?: { id: string; reason: string; fields: string[] }[];
};

export const DEFAULT_AMOUNT_THRESHOLD_MINOR = 100_000;
/** Arrays of ids at least this long are "bulk"; at BULK_HIGH they are high severity. */
export const BULK_MEDIUM = 10;
export const BULK_HIGH = 50;
/** Recipient counts: ≥ RECIPIENTS_MEDIUM medium, ≥ RECIPIENTS_HIGH high. */
export const RECIPIENTS_MEDIUM = 5;
export const RECIPIENTS_HIGH = 20;
/** An argument sharing this many consecutive characters with untrusted text came from it. */
export const PROVENANCE_CHUNK = 24;
/** An argument value at least this long that equals an untrusted value came from it. */
export const PROVENANCE_MIN_VALUE = 6;
/** An argument value at least this long found inside untrusted text was copied from it (shorter ones are often common phrases). */
export const PROVENANCE_MIN_SUBSTRING = 16;

const CLASS_TAGS: Record<ToolClass, { severity: RiskLevel; reason: string }> = {
  read: { severity: "low", reason: "Reads data; changes nothing." },
  write: { severity: "medium", reason: "Changes stored data." },
  irreversible: { severity: "high", reason: "Cannot be undone once executed." },
  financial: { severity: "high", reason: "Moves money." },
  "external-comms": { severity: "medium", reason: "Sends something outside the company." },
  "code-exec": { severity: "high", reason: "Executes code (in the sandbox)." },
  pii: { severity: "medium", reason: "Touches personal data." },
};

const AMOUNT_KEY = /amount|total|price|fee|cost|sum|balance|refund|payment|charge|credit|debit|minor|cents/i;
const BULK_ID_KEY = /(?:^|_)ids$|^(?:customers|invoices|accounts|users|records|items|targets)$/i;
const CAMEL_ID_KEY = /[a-z0-9](?:Id|Ids|ID|IDs)$/; // case-sensitive, so "paid" is not an id
const ALL_FLAG_KEY = /^(?:all|everyone|everything|all_?[a-z]+|include_?all|select_?all)$/i;
const SELECTOR_KEY =
  /(?:^|_)(?:ids?|filter|scope|query|pattern|selector|match|where)$|^(?:customer|invoice|account|target|to|cc|bcc|recipients?)$/i;
const URL = /\b(?:https?|ftp|wss?|file|gopher|data|javascript):[^\s<>"'`]+|(?<![\w@.])\/\/[^\s/<>"'`][^\s<>"'`]*/gi;
const HEX_RUN = /[0-9a-f]{80,}/gi;
const BASE64_RUN = /[A-Za-z0-9+/_-]{80,}={0,2}/g;

/**
 * Risk tags for a proposed action: from the tool's class, its arguments (amounts, recipients,
 * URLs, encoded runs, bulk scope), provenance (text from untrusted tool output), injected-looking
 * instructions and code scan findings. Highest severity first; one per (id, path, line).
 */
export function riskTagsFor(input: RiskInput): RiskTag[] {
  const tags: RiskTag[] = [];
  const add = (t: RiskTag) => tags.push({ ...t, reason: oneLine(t.reason) });
  const ctx = input.context;
  const ownDomains = [...(ctx.customerVerifiedDomains ?? []), ...(ctx.tenantDomains ?? [])];
  const knownHosts = [...ownDomains, ...(ctx.knownHosts ?? [])].map(normalizeHost);
  const isKnownHost = (host: string) => {
    const h = normalizeHost(host);
    return knownHosts.some((k) => h === k || h.endsWith(`.${k}`));
  };
  const strings = stringLeaves(input.args);

  for (const cls of new Set(input.toolClass)) {
    const c = CLASS_TAGS[cls];
    add({ id: `class.${cls}`, severity: c.severity, reason: c.reason, source: "class" });
  }

  amountTags(input.args, ctx.amountThresholdMinor ?? DEFAULT_AMOUNT_THRESHOLD_MINOR, add);
  const recipients = recipientTags(input, ownDomains, add);
  urlTags(strings, isKnownHost, add);
  textAddressTags(strings, recipients, isKnownHost, add);
  encodedRunTags(strings, add);
  bulkTags(input.args, add);
  provenanceTags(strings, ctx.untrustedValues ?? [], ownDomains, add);
  hiddenTextTags(input, ownDomains, add);

  const isKnownDomain = (d: string) => domainIn(d, ownDomains);
  for (const { path, value } of strings) {
    for (const hit of detectInjection(value, isKnownDomain)) {
      add({ id: hit.id, severity: hit.severity, reason: `Argument text ${hit.what}.`, source: "injection", path });
    }
  }
  (ctx.untrustedValues ?? []).forEach((value) => {
    for (const hit of detectInjection(value, isKnownDomain)) {
      // What the agent read is a warning about the run, one notch below the same text in an argument.
      const severity: RiskLevel = hit.severity === "critical" ? "high" : hit.severity === "high" ? "medium" : "low";
      add({
        id: `untrusted-input.${hit.id.replace(/^injection\./, "")}`,
        severity,
        reason: `Untrusted tool output the agent read ${hit.what}: ${quoteForReason(value, 50)}.`,
        source: "injection",
        quote: value.length > MAX_QUOTE ? `${value.slice(0, MAX_QUOTE - 1)}…` : value,
      });
    }
  });

  exfiltrationTags(tags, add);

  for (const f of input.stateFindings ?? []) {
    add({ id: f.id, severity: "critical", reason: f.reason, source: "state", ...(f.fields.length ? { path: f.fields.join(", ") } : {}) });
  }

  for (const f of input.scanFindings ?? []) {
    add({ id: `scan.${f.rule}`, severity: f.severity, reason: f.message, source: "scan", line: f.line });
  }

  // Every tag leaves through here, so this is where its path is bounded: after dedupe and the cap,
  // so tags at distinct fields stay distinct however alike their cut paths are.
  return listedTags(dedupe(tags).sort((a, b) => RISK_RANK[b.severity] - RISK_RANK[a.severity])).map((t) =>
    t.path === undefined ? t : { ...t, path: boundedPath(t.path) },
  );
}

/**
 * At most MAX_LISTED tags (each id keeps its most severe, so `riskTags` and the risk level are as
 * without the cap), and one `more-tags` as severe as the worst of the rest.
 */
function listedTags(sorted: RiskTag[]): RiskTag[] {
  const { kept, rest, worstOfRest } = listed(sorted, (t) => t.id);
  if (rest.length === 0) return kept;
  const more: RiskTag = {
    id: MORE_TAGS,
    severity: worstOfRest,
    source: rest[0].source,
    reason: `${rest.length.toLocaleString("en")} more tags like those listed, not listed one by one: ${countsByKind(rest, (t) => t.id)}.`,
  };
  return [...kept, more].sort((a, b) => RISK_RANK[b.severity] - RISK_RANK[a.severity]);
}

type Add = (t: RiskTag) => void;

/** Untrusted passages are quoted whole up to this length. */
const MAX_QUOTE = 4000;

/**
 * An injected instruction plus a recipient outside the known domains is the shape of a
 * prompt-injection exfiltration: critical, whatever each part is alone.
 */
function exfiltrationTags(tags: RiskTag[], add: Add) {
  const outside = tags.filter((t) => t.id === "recipient.outside-domain" || t.id === "recipient.ip-literal");
  if (outside.length === 0) return;
  const recipientPaths = new Set(outside.map((t) => t.path));
  const injected = tags.some((t) => t.source === "injection") || tags.some((t) => t.id === "provenance.untrusted" && recipientPaths.has(t.path));
  if (!injected) return;
  add({
    id: "exfiltration.outside-recipient",
    severity: "critical",
    reason: "A recipient outside the known domains, in a call shaped by untrusted text (an injected instruction or a copied address): the pattern of a prompt-injection exfiltration.",
    source: "injection",
    path: [...recipientPaths].filter((p): p is string => p !== undefined).join(", ") || undefined,
  });
}
type StringLeaf = { path: string; key: string | null; value: string };

function amountTags(args: JsonObject, threshold: number, add: Add) {
  walk(args, "", null, (path, key, v) => {
    if (key === null || !AMOUNT_KEY.test(key)) return;
    const n = typeof v === "number" ? v : typeof v === "string" && /^-?\d+(?:\.\d+)?$/.test(v.trim()) ? Number(v) : null;
    if (n === null) return;
    if (n > threshold) {
      add({
        id: "amount.over-threshold",
        severity: "high",
        reason: `${key} is ${formatMinor(n)}, above the ${formatMinor(threshold)} threshold.`,
        source: "argument",
        path,
      });
    }
    if (n < 0) add({ id: "amount.negative", severity: "medium", reason: `${key} is negative (${n}).`, source: "argument", path });
    if (!Number.isInteger(n)) {
      add({
        id: "amount.not-minor-units",
        severity: "medium",
        reason: `${key} is ${n}, not a whole number of minor units; it may be in major units (100× off).`,
        source: "argument",
        path,
      });
    }
  });
}

function recipientTags(input: RiskInput, ownDomains: string[], add: Add): EmailRecipient[] {
  const comms = input.toolClass.includes("external-comms");
  const recipients = emailRecipientsIn(input.args, { commsKeys: comms });
  for (const r of recipients) {
    if (isIpLiteral(r.domain)) {
      add({
        id: "recipient.ip-literal",
        severity: "critical",
        reason: `Recipient ${quoteForReason(r.address)} is addressed to a raw IP (${ipLiteralForm(r.domain)}), bypassing domain checks.`,
        source: "argument",
        path: r.path,
      });
    } else if (!domainIn(r.domain, ownDomains)) {
      add({
        id: "recipient.outside-domain",
        severity: "high",
        reason:
          ownDomains.length === 0
            ? `Recipient ${quoteForReason(r.address)}: no verified or tenant domains are known to compare with.`
            : `Recipient ${quoteForReason(r.address)} is outside the customer's verified and the tenant's domains.`,
        source: "argument",
        path: r.path,
      });
    }
  }
  const distinct = new Set(recipients.map((r) => r.address.toLowerCase())).size;
  if (distinct >= RECIPIENTS_MEDIUM) {
    add({
      id: "bulk.many-recipients",
      severity: distinct >= RECIPIENTS_HIGH ? "high" : "medium",
      reason: `Goes to ${distinct} recipients at once.`,
      source: "argument",
    });
  }
  return recipients;
}

/**
 * Addresses in free text outside the known domains, as for URLs to unknown hosts (a lookalike there
 * reads like the customer's own), named with non-ASCII marked and the domain in punycode.
 */
function textAddressTags(strings: StringLeaf[], recipients: EmailRecipient[], isKnownHost: (h: string) => boolean, add: Add) {
  const recipientPaths = new Set(recipients.map((r) => r.path));
  for (const { path, value } of strings) {
    if (recipientPaths.has(path)) continue;
    const outside = addressesIn(value, path).filter((a) => !isKnownHost(a.domain));
    if (outside.length === 0) continue;
    const { address, domain } = outside[0];
    const ascii = /^[\x21-\x7e]*$/.test(domain);
    const shown = `${quoteForReason(escapeNonAscii(address), 80)}${ascii ? "" : ` (domain ${domainToASCII(domain) || "not a valid host name"})`}`;
    add({
      id: "address.outside-domain",
      severity: "medium",
      reason: `Text names ${outside.length === 1 ? "the address" : `${outside.length} addresses outside the known domains, the first`} ${shown}${outside.length === 1 ? ", outside the known domains" : ""}.`,
      source: "argument",
      path,
    });
  }
}

function urlTags(strings: StringLeaf[], isKnownHost: (h: string) => boolean, add: Add) {
  for (const { path, value } of strings) {
    for (const m of value.matchAll(URL)) {
      // The lookbehind lets only the first of a run of trailing marks try to reach the end (linear).
      const raw = m[0].replace(/(?<![.,;:!?)\]])[.,;:!?)\]]+$/, "");
      const scheme = /^([a-z]+):/i.exec(raw)?.[1]?.toLowerCase();
      if (scheme === "javascript" || scheme === "data" || scheme === "file") {
        add({ id: "url.dangerous-scheme", severity: "high", reason: `A ${scheme}: URL ${quoteForReason(raw, 40)}.`, source: "argument", path });
        continue;
      }
      const rawHost = /^(?:[a-z]+:)?\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^/:?#]*)/i.exec(raw)?.[1] ?? "";
      let host = rawHost;
      try {
        host = new globalThis.URL(raw.startsWith("//") ? `http:${raw}` : raw).hostname;
      } catch {
        // Unparseable URLs keep their raw host: they still point somewhere.
      }
      if (host === "") continue;
      if (isIpLiteral(rawHost) || isIpLiteral(host)) {
        const form = ipLiteralForm(rawHost);
        add({
          id: "url.ip-literal",
          severity: "high",
          reason:
            form === "encoded"
              ? `URL host ${quoteForReason(rawHost, 40)} is an IP address in disguise (decimal/hex/octal → ${host}).`
              : `URL points at a raw IP address ${quoteForReason(rawHost, 40)}, not a named host.`,
          source: "argument",
          path,
        });
      } else if (!isKnownHost(host)) {
        add({ id: "url.unknown-host", severity: "medium", reason: `URL to an unknown host ${quoteForReason(host, 40)}.`, source: "argument", path });
      }
    }
  }
}

function encodedRunTags(strings: StringLeaf[], add: Add) {
  for (const { path, value } of strings) {
    const hex = value.match(HEX_RUN);
    if (hex) {
      const longest = Math.max(...hex.map((h) => h.length));
      add({ id: "encoded.hex-run", severity: "medium", reason: `Contains a ${longest}-character hex run (encoded data?).`, source: "argument", path });
    }
    const withoutHex = value.replace(HEX_RUN, " ");
    const b64 = (withoutHex.match(BASE64_RUN) ?? []).filter(looksEncoded);
    if (b64.length > 0) {
      const longest = Math.max(...b64.map((b) => b.length));
      add({
        id: "encoded.base64-run",
        severity: longest >= 1000 ? "high" : "medium",
        reason: `Contains a ${longest}-character base64-like run (encoded data?).`,
        source: "argument",
        path,
      });
    }
  }
}

// Real encodings mix cases and digits; a long identifier-ish word or a row of one letter does not.
function looksEncoded(run: string): boolean {
  const kinds = [/[a-z]/, /[A-Z]/, /[0-9]/].filter((re) => re.test(run)).length;
  return kinds === 3 || (kinds === 2 && /[+/=]/.test(run));
}

function bulkTags(args: JsonObject, add: Add) {
  walk(args, "", null, (path, key, v) => {
    if (Array.isArray(v) && key !== null && (BULK_ID_KEY.test(key) || CAMEL_ID_KEY.test(key)) && !/recipient|^(?:to|cc|bcc)$/i.test(key)) {
      const scalars = v.filter((x) => typeof x === "string" || typeof x === "number").length;
      if (scalars >= BULK_MEDIUM) {
        add({
          id: "bulk.many-ids",
          severity: scalars >= BULK_HIGH ? "high" : "medium",
          reason: `${key} lists ${scalars} items: acts on many records at once.`,
          source: "argument",
          path,
        });
      }
    }
    if (v === true && key !== null && ALL_FLAG_KEY.test(key)) {
      add({ id: "bulk.all", severity: "high", reason: `${key}: true — applies to every record.`, source: "argument", path });
    }
    if (typeof v === "string" && key !== null && (SELECTOR_KEY.test(key) || CAMEL_ID_KEY.test(key))) {
      const s = v.trim();
      if (s === "*" || s === "%" || /^all$/i.test(s) || /(?:^|[^\\])[*%](?:$|\W)/.test(s) || /^\*|\*$/.test(s)) {
        add({ id: "bulk.wildcard", severity: "high", reason: `${key} is a wildcard ${quoteForReason(s, 30)}: may match many records.`, source: "argument", path });
      }
    }
  });
}

function provenanceTags(strings: StringLeaf[], untrusted: string[], ownDomains: string[], add: Add) {
  const sources = untrusted.map((u) => normalizeProvenance(u)).filter((u) => u.length >= PROVENANCE_MIN_VALUE);
  if (sources.length === 0) return;
  const exact = new Set(sources);
  // Every check below is one pass over the argument, however many and long the sources are.
  const index = new SubstringIndex(sources);

  for (const { path, value } of strings) {
    const s = normalizeProvenance(value);
    if (s.length < PROVENANCE_MIN_VALUE) continue;
    let why: string | null = null;
    if (exact.has(s)) why = "equals";
    else if (s.length >= PROVENANCE_MIN_SUBSTRING && index.contains(s)) why = "is copied from";
    else if (index.longestSharedRun(s) >= PROVENANCE_CHUNK) why = "contains a passage of";
    else {
      // Addresses and links lifted from untrusted text, even inside a longer argument.
      const tokens = [...addressesIn(value, path).map((a) => a.address), ...(value.match(URL) ?? [])];
      if (tokens.some((t) => t.length >= PROVENANCE_MIN_VALUE && index.contains(normalizeProvenance(t)))) {
        why = "contains an address or link from";
      }
    }
    if (why !== null) {
      // A known address (the customer's verified one, read back from a lookup) is routine; other copied text is worth a look.
      const knownAddress = /^[^\s@]+@[^\s@]+$/.test(value.trim()) && domainIn(value.trim().split("@")[1] ?? "", ownDomains);
      add({
        id: "provenance.untrusted",
        severity: knownAddress ? "low" : "medium",
        reason: `Argument ${why} untrusted tool output: ${quoteForReason(value, 50)}.`,
        source: "provenance",
        path,
      });
    }
  }
}

// Tags name the field as the reviewer finds it: `args.to`, `args.items[2]`, or `reason`.
function hiddenTextTags(input: RiskInput, ownDomains: string[], add: Add) {
  const argsPath = (path: string) => escapeNonAscii(path === "" ? "args" : path.startsWith("[") ? `args${path}` : `args.${path}`);
  walk(input.args, "", null, (path, key, v) => {
    if (typeof v === "string") deceptiveTextTags(argsPath(path), v, ownDomains).forEach(add);
    else if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      // A key can hide text too; its tag names the key's own path.
      for (const k of Object.keys(v)) {
        if (/[^\x20-\x7e]/.test(k)) deceptiveTextTags(argsPath(childPath(path, k)), k, ownDomains).forEach(add);
      }
    }
  });
  if (input.reason) deceptiveTextTags("reason", input.reason, ownDomains).forEach(add);
}

function normalizeProvenance(s: string): string {
  return normalizeForMatching(s).replace(/\s+/g, " ").trim();
}

function stringLeaves(args: JsonObject): StringLeaf[] {
  const out: StringLeaf[] = [];
  walk(args, "", null, (path, key, v) => {
    if (typeof v === "string") out.push({ path, key, value: v });
  });
  return out;
}

function walk(v: JsonValue, path: string, key: string | null, visit: (path: string, key: string | null, v: JsonValue) => void) {
  visit(path, key, v);
  if (Array.isArray(v)) v.forEach((item, i) => walk(item, childPath(path, i), key, visit));
  else if (v !== null && typeof v === "object") for (const [k, child] of Object.entries(v)) walk(child, childPath(path, k), k, visit);
}

function dedupe(tags: RiskTag[]): RiskTag[] {
  const seen = new Map<string, RiskTag>();
  for (const t of tags) {
    const k = `${t.id}\u0000${t.path ?? ""}\u0000${t.line ?? ""}`;
    const prev = seen.get(k);
    if (prev === undefined || RISK_RANK[t.severity] > RISK_RANK[prev.severity]) seen.set(k, t);
  }
  return [...seen.values()];
}

function normalizeHost(h: string): string {
  return h.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
}

// People read money in major units.
function formatMinor(n: number): string {
  if (!Number.isInteger(n)) return String(n);
  const abs = Math.abs(n);
  return `${n < 0 ? "-" : ""}${Math.floor(abs / 100).toLocaleString("en-US")}.${String(abs % 100).padStart(2, "0")}`;
}

function oneLine(s: string): string {
  const line = s.replace(/[\r\n\u2028\u2029]+/g, " ").trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
