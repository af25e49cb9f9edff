import { diffLines } from "diff";
import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";

export type FieldChange = { path: string; change: "added" | "removed" | "changed"; before: JsonValue | null; after: JsonValue | null };
export type LineChange = { kind: "added" | "removed" | "same"; text: string };

/** The diff a reviewer sees between two revisions (or two snapshots). */
export type PayloadDiff = { fields: FieldChange[]; code?: LineChange[] };

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Field-level changes between two JSON objects, with dotted paths (arrays compared whole). */
export function diffFields(before: JsonObject | null, after: JsonObject | null, prefix = ""): FieldChange[] {
  const changes: FieldChange[] = [];
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])].sort();
  for (const key of keys) {
    const path = prefix ? `${prefix}.${key}` : key;
    const b = before?.[key];
    const a = after?.[key];
    if (isObject(b) && isObject(a)) {
      changes.push(...diffFields(b, a, path));
    } else if (b === undefined) {
      changes.push({ path, change: "added", before: null, after: a ?? null });
    } else if (a === undefined) {
      changes.push({ path, change: "removed", before: b, after: null });
    } else if (JSON.stringify(a) !== JSON.stringify(b)) {
      changes.push({ path, change: "changed", before: b, after: a });
    }
  }
  return changes;
}

// Myers' diff takes time in proportion to the texts' size times the number of changed lines: two
// large unrelated versions took minutes. Past this many changed lines (or this long, whichever
// comes first) the reviewer sees the whole code replaced instead of a line-by-line diff.
const MAX_CHANGED_LINES = 500;
const MAX_DIFF_MS = 1000;

/** A line diff between two versions of code; a wholesale replacement when they differ too much. */
export function diffCode(before: string, after: string): LineChange[] {
  const parts = diffLines(before, after, { maxEditLength: MAX_CHANGED_LINES, timeout: MAX_DIFF_MS });
  if (parts === undefined) return [...linesOf(before, "removed"), ...linesOf(after, "added")];
  return parts.flatMap((part) => linesOf(part.value, part.added ? "added" : part.removed ? "removed" : "same"));
}

function linesOf(text: string, kind: LineChange["kind"]): LineChange[] {
  if (text === "") return [];
  return text
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => ({ kind, text: line }));
}
