import { diffLines, diffWordsWithSpace } from "diff";
import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";
import { boundedPath, type RiskTag } from "@/lib/risk/risk-tag";
import { MAX_LISTED, MORE_TAGS } from "@/lib/risk/listed";

/**
 * A run of lines of code that were added, removed or kept, joined by newlines (revisions stored
 * before runs have one line each: a reader joins neighbours of one kind).
 */
export type LineChange = { kind: "added" | "removed" | "same"; text: string };
/** A run of words of a changed text field: kept, removed or added. */
export type WordChange = { kind: LineChange["kind"]; text: string };
export type FieldChange = {
  path: string;
  change: "added" | "removed" | "changed";
  before: JsonValue | null;
  after: JsonValue | null;
  /** For a changed text: word by word (absent when the texts differ too much to diff). */
  words?: WordChange[];
};

/** A risk tag the previous revision had and this one has not (what an edit took away). */
export type RemovedTag = Pick<RiskTag, "id" | "severity" | "reason" | "path">;

/**
 * The diff a reviewer sees between two revisions (or two snapshots). `unavailable`: why the diff
 * could not be computed (too large for its time budget); the fields and code are then both
 * versions whole, never a partial diff.
 */
export type PayloadDiff = { fields: FieldChange[]; code?: LineChange[]; removedTags?: RemovedTag[]; unavailable?: string };

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Field-level changes between two JSON objects, with dotted paths (arrays compared whole); with
 * `words`, a changed text also word by word (a revision's diff, computed once when it is written).
 */
export function diffFields(before: JsonObject | null, after: JsonObject | null, prefix = "", options: { words?: boolean } = {}): FieldChange[] {
  const changes: FieldChange[] = [];
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])].sort();
  for (const key of keys) {
    const path = prefix ? `${prefix}.${key}` : key;
    const b = before?.[key];
    const a = after?.[key];
    if (isObject(b) && isObject(a)) {
      changes.push(...diffFields(b, a, path, options));
    } else if (b === undefined) {
      changes.push({ path, change: "added", before: null, after: a ?? null });
    } else if (a === undefined) {
      changes.push({ path, change: "removed", before: b, after: null });
    } else if (JSON.stringify(a) !== JSON.stringify(b)) {
      const words = options.words && typeof a === "string" && typeof b === "string" ? diffText(b, a) : undefined;
      changes.push({ path, change: "changed", before: b, after: a, ...(words ? { words } : {}) });
    }
  }
  return changes;
}

/**
 * The changes listed one by one, at most MAX_LISTED (in path order), and how many more there are:
 * a changed schema or state can change thousands of fields, and a page of thousands of rows helps
 * no reviewer and holds the server while it renders.
 */
export function listedChanges(changes: readonly FieldChange[]): { listed: FieldChange[]; more: number } {
  return { listed: changes.slice(0, MAX_LISTED), more: Math.max(0, changes.length - MAX_LISTED) };
}

// Myers' diff takes time in proportion to the texts' size times the number of changed lines: two
// large unrelated versions took minutes. Past this many changed lines (or this long, whichever
// comes first) the reviewer sees the whole code replaced instead of a line-by-line diff.
const MAX_CHANGED_LINES = 500;
const MAX_DIFF_MS = 1000;

// A word diff is bounded like the code diff: past this many changed words the field is shown whole.
const MAX_CHANGED_WORDS = 200;

/** A word diff between two versions of a text field; undefined when they differ too much (shown whole). */
function diffText(before: string, after: string): WordChange[] | undefined {
  const parts = diffWordsWithSpace(before, after, { maxEditLength: MAX_CHANGED_WORDS, timeout: MAX_DIFF_MS });
  if (parts === undefined) return undefined;
  const words: WordChange[] = parts.map((part) => ({ kind: part.added ? "added" : part.removed ? "removed" : "same", text: part.value }));
  return joinChangedRuns(words);
}

/**
 * Reads as phrases: the spaces between two changed words belong to the change (not "Customer"
 * removed, " " kept, "returned" removed), and each run of changes is its removed text, then its added.
 */
function joinChangedRuns(words: WordChange[]): WordChange[] {
  const out: WordChange[] = [];
  let removed = "";
  let added = "";
  const flush = () => {
    if (removed) out.push({ kind: "removed", text: removed });
    if (added) out.push({ kind: "added", text: added });
    removed = "";
    added = "";
  };
  words.forEach((w, i) => {
    const between = w.kind === "same" && /^\s+$/.test(w.text) && (removed || added) && i + 1 < words.length && words[i + 1].kind !== "same";
    if (w.kind === "removed" || between) removed += w.text;
    if (w.kind === "added" || between) added += w.text;
    if (w.kind === "same" && !between) {
      flush();
      out.push(w);
    }
  });
  flush();
  return out;
}

/**
 * The tags of `before` that `after` no longer has, matched by id and field, most severe first: what
 * a reviewer's edit (or a re-read of the state) took away. When `after` lists only some of its tags
 * (a `more-tags` tag counts the rest, lib/risk/listed.ts), a tag whose id `after` still has may be
 * among those counted, so only ids `after` has none of are called removed: never a removal that
 * did not happen.
 */
export function removedTags(before: readonly RiskTag[], after: readonly RiskTag[]): RemovedTag[] {
  // Paths compared and kept as new tags store them (bounded): a revision stored before paths were
  // bounded neither reports its long-path tags as removed nor carries those paths forward.
  const key = (t: Pick<RiskTag, "id" | "path">) => `${t.id}\u0000${t.path === undefined ? "" : boundedPath(t.path)}`;
  const kept = new Set(after.map(key));
  const afterCounted = after.some((t) => t.id === MORE_TAGS);
  const idsAfter = new Set(after.map((t) => t.id));
  const seen = new Set<string>();
  return before.flatMap((t) => {
    if (kept.has(key(t)) || seen.has(key(t)) || (afterCounted && idsAfter.has(t.id))) return [];
    seen.add(key(t));
    return [{ id: t.id, severity: t.severity, reason: t.reason, ...(t.path === undefined ? {} : { path: boundedPath(t.path) }) }];
  });
}

/**
 * A line diff between two versions of code, as runs of lines (a wholesale replacement when they
 * differ too much): stored with the revision, it is about as long as the two versions, not a
 * record per line.
 */
export function diffCode(before: string, after: string): LineChange[] {
  const parts = diffLines(before, after, { maxEditLength: MAX_CHANGED_LINES, timeout: MAX_DIFF_MS });
  if (parts === undefined) return codeReplacedWhole(before, after);
  return parts.flatMap((part) => runOf(part.value, part.added ? "added" : part.removed ? "removed" : "same"));
}

/** Both versions of code whole: the first removed, the second added. */
export function codeReplacedWhole(before: string, after: string): LineChange[] {
  return [...runOf(before, "removed"), ...runOf(after, "added")];
}

function runOf(text: string, kind: LineChange["kind"]): LineChange[] {
  return text === "" ? [] : [{ kind, text: text.replace(/\n$/, "") }];
}
