import type { RiskLevel } from "./risk-tag";

export type InjectionHit = { id: string; severity: RiskLevel; what: string };

// Invisible characters used to hide instructions from a human while a model still reads them.
const ZERO_WIDTH = /[\u200b-\u200d\u2060\u2061-\u2064\ufeff\u180e]/;
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;
const TAG_CHARS = /\udb40[\udc00-\udc7f]/; // U+E0000–E007F, "ASCII smuggling"

type Pattern = { id: string; severity: RiskLevel; what: string; re: RegExp };

// Matched against normalized text: NFKC, lower case, invisible characters removed,
// every run of whitespace one space. Phrases are specific enough that ordinary
// business mail ("please ignore the previous invoice") does not match.
const PATTERNS: Pattern[] = [
  {
    id: "injection.override-instructions",
    severity: "critical",
    what: "tells the model to ignore its instructions",
    re: /\b(?:ignore|disregard|forget|override|bypass|skip)(?: \S+){0,4}? (?:previous|prior|preceding|earlier|above|all|any|your|the|existing|original|system)(?: \S+){0,3}? (?:instructions?|prompts?|rules|directions|directives|guidelines|guardrails|system prompt|programming)\b/,
  },
  {
    id: "injection.role-reassignment",
    severity: "high",
    what: "tries to give the model a new role",
    re: /\byou are now (?:an? |the |my |in )?(?:ai|assistant|agent|admin|administrator|developer|system|root|unrestricted|jailbroken|dan|developer mode|no longer)\b|\bfrom now on,? you (?:will|must|are|should)\b|\bact as (?:an? |the )?(?:admin|administrator|root|system|developer|unrestricted)\b|\bnew (?:system )?instructions? ?:/,
  },
  {
    id: "injection.role-marker",
    severity: "high",
    what: "contains a chat role marker",
    re: /(?:^|[\n.!?] ?)(?:system|assistant|developer) ?:|<\|(?:im_start|im_end|system|endoftext)\|>|\[\/?inst\]|<\/?(?:system|assistant)>/,
  },
  {
    id: "injection.secrecy",
    severity: "high",
    what: "asks for something to be hidden from people",
    re: /\b(?:do not|don't|dont|never|without) (?:tell|telling|inform|informing|mention|mentioning|notify|notifying|alert|alerting|reveal|revealing|let (?:\S+ ){0,3}know)(?: \S+){0,3}? (?:user|users|customer|human|humans|reviewer|reviewers|anyone|admin|them|him|her)\b/,
  },
  {
    id: "injection.secret-request",
    severity: "high",
    what: "asks to reveal secrets or the system prompt",
    re: /\b(?:reveal|print|show|output|leak|repeat|dump)(?: \S+){0,3}? (?:system prompt|api keys?|passwords?|secrets?|credentials|access tokens?)\b/,
  },
];

// "send/email/forward … to …@…": the caller checks the address's domain. The domain's last
// character cannot be punctuation (or it is one lone mark): a lazy quantifier here traded dots
// with the trailing punctuation and backtracked quadratically on `a@b.........x`.
const SEND_TO_ADDRESS =
  /\b(?:send|email|e-mail|mail|forward|upload|post|transfer|exfiltrate|share|export|copy)(?: \S+){0,12}? to (?:\S+ ){0,3}?<?([^\s@<>,;:"'()]+@([^\s@<>,;:"'()]*[^\s!"'(),.:;<>?@]|[!.?]))[>.,;:!?)]*(?= |$)/g;

export function normalizeForMatching(text: string): string {
  return text
    .normalize("NFKC")
    .replace(/\udb40[\udc00-\udc7f]/g, "")
    .replace(/[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u180e\u00ad\u061c]/g, "")
    .toLowerCase()
    .replace(/[ \t\r\f\v\u00a0\u2000-\u200a\u3000]+/g, " ")
    .replace(/ ?\n\s*/g, "\n");
}

/**
 * Heuristic findings of injected instructions in a piece of text. `isKnownDomain`
 * decides whether "send … to someone@domain" is ordinary business (a known
 * domain) or an instruction to send data somewhere new.
 */
export function detectInjection(text: string, isKnownDomain: (domain: string) => boolean): InjectionHit[] {
  const hits: InjectionHit[] = [];
  if (TAG_CHARS.test(text)) {
    hits.push({ id: "injection.hidden-unicode", severity: "critical", what: "hides text in Unicode tag characters" });
  } else if (ZERO_WIDTH.test(text) || BIDI.test(text)) {
    hits.push({
      id: "injection.hidden-unicode",
      severity: "high",
      what: BIDI.test(text) ? "contains bidirectional override characters" : "contains zero-width characters",
    });
  }
  const norm = normalizeForMatching(text);
  const flat = norm.replace(/\n/g, " ");
  for (const p of PATTERNS) {
    const subject = p.id === "injection.role-marker" ? norm : flat;
    if (p.re.test(subject)) hits.push({ id: p.id, severity: p.severity, what: p.what });
  }
  // Letter-spaced or squashed spellings of the strongest phrase ("i g n o r e  p r e v i o u s …").
  if (!hits.some((h) => h.id === "injection.override-instructions")) {
    const squashed = flat.replace(/[^a-z]/g, "");
    if (/(?:ignore|disregard|forget)(?:all|the|any|your)*(?:previous|prior|above|earlier)(?:instructions?|prompts?|rules)/.test(squashed)) {
      hits.push({ id: "injection.override-instructions", severity: "critical", what: "tells the model to ignore its instructions" });
    }
  }
  for (const m of flat.matchAll(SEND_TO_ADDRESS)) {
    const domain = (m[2] ?? "").replace(/(?<!\.)\.+$/, "");
    if (domain !== "" && !isKnownDomain(domain)) {
      hits.push({ id: "injection.send-to-address", severity: "high", what: `asks to send something to ${m[1]}` });
      break;
    }
  }
  return hits;
}
