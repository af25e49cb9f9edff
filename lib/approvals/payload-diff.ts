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

export function diffCode(before: string, after: string): LineChange[] {
  return diffLines(before, after).flatMap((part) =>
    part.value
      .replace(/\n$/, "")
      .split("\n")
      .map((text) => ({ kind: part.added ? ("added" as const) : part.removed ? ("removed" as const) : ("same" as const), text })),
  );
}
