import { domainToUnicode } from "node:url";
import { confusableSkeleton, scriptOf, type Script } from "./confusable-skeleton";
import { codePointLabel, codePoints, hiddenCharacterName, hiddenKind, type HiddenKind } from "./hidden-characters";
import type { RiskLevel, RiskTag } from "./risk-tag";

/** A line longer than this (characters between line breaks) may hide its end off-screen. */
export const LONG_LINE_CHARS = 1_000;
/** A value longer than this cannot be read by a person: "not inspectable". */
export const NOT_INSPECTABLE_CHARS = 50_000;
/** A base64/hex-like run at least this long is an opaque blob: "not inspectable". */
export const NOT_INSPECTABLE_RUN = 4_096;
/** Control characters or U+FFFD making up this share of a value (and at least 32 of them): binary. */
const BINARY_SHARE = 0.05;
const BINARY_MIN = 32;

export const NOT_INSPECTABLE_TAG = "text.not-inspectable";

const HIDDEN: Record<HiddenKind, { id: string; severity: RiskLevel; what: string }> = {
  bidi: { id: "text.bidi-control", severity: "high", what: "bidirectional control character" },
  "zero-width": { id: "text.zero-width", severity: "high", what: "zero-width character" },
  tag: { id: "text.tag-characters", severity: "critical", what: "Unicode tag character (hidden ASCII)" },
  "variation-selector": { id: "text.variation-selector", severity: "medium", what: "variation selector" },
  invisible: { id: "text.invisible", severity: "medium", what: "invisible or format character" },
};

const BLOB_RUN = /[A-Za-z0-9+/=_-]+/g;
const LINE = /[^\n\r]+/g;
const BINARY_CHAR = /[\x00-\x08\v\f\x0e-\x1f\ufffd]/g;
// Everything hiddenKind may name; it decides (emoji selectors after symbols are ordinary).
const HIDDEN_CANDIDATE = /[\p{Cf}\p{Cc}\p{Cs}\p{Default_Ignorable_Code_Point}\u2028\u2029]/gu;
/** Host names are at most 253 characters: a longer run is judged by its last 253 (where a domain ends). */
const MAX_DOMAIN = 253;
// Maximal runs only (each match ends where the run ends), so finding them is one pass.
const DOMAIN_RUN = /[\p{L}\p{N}\p{M}.-]+/gu;

/**
 * What a piece of text hides from its reader, as risk tags on `path`: bidi, zero-width, tag and
 * other invisible characters, lines that run off-screen, domains that mix scripts, are punycode or
 * look like a verified one, values too large or opaque to inspect. Linear in the text.
 */
export function deceptiveTextTags(path: string, text: string, verifiedDomains: readonly string[]): RiskTag[] {
  const tags: RiskTag[] = [];
  // Each measure is one native regular-expression pass over maximal runs (no backtracking).
  const hidden = new Map<HiddenKind, { count: number; first: number }>();
  for (const m of text.matchAll(HIDDEN_CANDIDATE)) {
    const cp = m[0].codePointAt(0)!;
    const previous = m.index > 0 ? text.codePointAt(m.index - 1)! : null;
    const kind = hiddenKind(cp, previous);
    if (!kind) continue;
    const seen = hidden.get(kind);
    if (seen) seen.count++;
    else hidden.set(kind, { count: 1, first: cp });
  }
  let longestLine = 0;
  for (const m of text.matchAll(LINE)) longestLine = Math.max(longestLine, m[0].length);
  let longestRun = 0;
  for (const m of text.matchAll(BLOB_RUN)) longestRun = Math.max(longestRun, m[0].length);
  const binary = text.match(BINARY_CHAR)?.length ?? 0;
  const length = text.length;

  for (const [kind, { count, first }] of hidden) {
    const h = HIDDEN[kind];
    const example = `${codePointLabel(first)} ${hiddenCharacterName(first)}`;
    tags.push({
      id: h.id, severity: h.severity, source: "text", path,
      reason: `Contains ${count} ${h.what}${count === 1 ? "" : "s"} (${example}); shown as ⟦${codePointLabel(first)}⟧ markers.`,
    });
  }
  if (longestLine > LONG_LINE_CHARS) {
    tags.push({
      id: "text.long-line", severity: "medium", source: "text", path,
      reason: `Has a ${longestLine.toLocaleString("en")}-character line that could hide its end off-screen; it is shown wrapped, read it to the end.`,
    });
  }
  const notInspectable =
    length > NOT_INSPECTABLE_CHARS ? `${length.toLocaleString("en")} characters, too long to read`
    : longestRun >= NOT_INSPECTABLE_RUN ? `a ${longestRun.toLocaleString("en")}-character encoded blob`
    : binary >= BINARY_MIN && binary >= length * BINARY_SHARE ? `binary data (${binary} control characters)`
    : null;
  if (notInspectable) {
    tags.push({
      id: NOT_INSPECTABLE_TAG, severity: "high", source: "text", path,
      reason: `Not inspectable: ${notInspectable}. The console cannot analyse it; it cannot be approved in bulk.`,
    });
  }
  tags.push(...domainTags(path, text, verifiedDomains));
  return tags;
}

function domainTags(path: string, text: string, verifiedDomains: readonly string[]): RiskTag[] {
  const verified = verifiedDomains.map((d) => d.toLowerCase().replace(/\.$/, "")).filter((d) => d.includes("."));
  const skeletons = verified.map((d) => ({ domain: d, skeleton: confusableSkeleton(d) }));
  const found = new Map<string, RiskTag>();
  for (const m of text.matchAll(DOMAIN_RUN)) {
    let token = m[0];
    if (token.length > MAX_DOMAIN) {
      const cut = token.indexOf(".", token.length - MAX_DOMAIN);
      token = cut < 0 ? "" : token.slice(cut + 1);
    }
    token = token.replace(/^[.-]+/, "").replace(/(?<![.-])[.-]+$/, "");
    const labels = token.split(".");
    if (labels.length < 2 || labels.some((l) => l === "") || !/\p{L}{2,}/u.test(labels.at(-1)!)) continue;
    const lower = token.toLowerCase();
    const punycode = labels.some((l) => /^xn--/i.test(l));
    const unicode = punycode ? domainToUnicode(lower) || lower : lower;
    const nonAscii = /[^\x00-\x7f]/.test(unicode);
    if (!punycode && !nonAscii && !/[01]|rn/.test(lower)) continue;
    const shown = escapeNonAscii(unicode);
    const own = verified.some((d) => unicode === d || unicode.endsWith(`.${d}`));
    const skeleton = confusableSkeleton(unicode);
    const lookalike = own ? undefined : skeletons.find((s) => skeleton === s.skeleton || skeleton.endsWith(`.${s.skeleton}`));
    if (lookalike && !found.has("text.confusable-domain")) {
      found.set("text.confusable-domain", {
        id: "text.confusable-domain", severity: "critical", source: "text", path,
        reason: `Domain ${shown}${punycode ? ` (punycode ${lower})` : ""} looks like the verified domain ${lookalike.domain} but is spelled with other characters.`,
      });
    }
    if (!found.has("text.mixed-script-domain") && labels.some((l) => mixedScripts(punycode ? domainToUnicode(l) || l : l))) {
      found.set("text.mixed-script-domain", {
        id: "text.mixed-script-domain", severity: "high", source: "text", path,
        reason: `Domain ${shown} mixes letters of different scripts in one label.`,
      });
    }
    if ((punycode || nonAscii) && !found.has("text.idn-domain")) {
      found.set("text.idn-domain", {
        id: "text.idn-domain", severity: "medium", source: "text", path,
        reason: punycode ? `Domain ${lower} is punycode for ${shown}.` : `Domain ${shown} is an internationalised (non-ASCII) domain.`,
      });
    }
  }
  return [...found.values()];
}

function mixedScripts(label: string): boolean {
  const scripts = new Set<Script>();
  for (const ch of label) {
    const s = scriptOf(ch);
    if (s) scripts.add(s);
  }
  return scripts.size > 1;
}

/** `exаmple.com` → `ex⟦U+0430⟧mple.com`: what is not ASCII is named, never shown as a lookalike. */
export function escapeNonAscii(text: string): string {
  let out = "";
  for (const cp of codePoints(text)) out += cp < 0x80 && cp >= 0x20 ? String.fromCharCode(cp) : `⟦${codePointLabel(cp)}⟧`;
  return out;
}
