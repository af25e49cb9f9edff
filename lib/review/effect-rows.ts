import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";

/** A tool's preview as stored with the revision: computed from the state at request. */
export type EffectPreview = { summary: string; before: JsonObject | null; after: JsonObject | null };

/** The same effect computed from the state read now, or why it was not read. */
export type EffectNow = { read: true; before: JsonObject | null; after: JsonObject | null } | { read: false; why: string };

/** One row of the effect table: a field at request, now, and after the effect. */
export type EffectRow = {
  field: string;
  /** The value at request; `null` with `newAtRequest` when the effect creates the record. */
  atRequest: JsonValue | null;
  newAtRequest: boolean;
  now: { read: true; value: JsonValue | null; isNew: boolean } | { read: false; why: string };
  /** What the effect leaves: computed from the state now when it was read, else from the state at request. */
  after: JsonValue | null;
  afterFrom: "now" | "request";
  /** What "After" was at request, when it differs from `after` (the state moved under the effect). */
  afterAtRequest?: JsonValue | null;
  /** The effect changes this field (from the state `after` is computed from). */
  changes: boolean;
  /** The field's value now differs from the value at request. */
  moved: boolean;
};

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The effect table's rows. "After" has one meaning on the page: what the effect would leave if it ran
 * now, i.e. Now plus the effect (a 450.00 refund with 2.00 refunded now: 452.00), with what it was
 * at request beside it when the two differ. Only when the state could not be read now is "After"
 * the one computed at request, and then it says so.
 */
export function effectRows(preview: EffectPreview, now: EffectNow): EffectRow[] {
  const live = now.read && now.after !== null ? now : null;
  const fields = [...new Set([
    ...Object.keys(preview.before ?? {}), ...Object.keys(preview.after ?? {}),
    ...Object.keys(live?.before ?? {}), ...Object.keys(live?.after ?? {}),
  ])];
  return fields.map((field): EffectRow => {
    const atRequest = preview.before?.[field] ?? null;
    const afterAtRequest = preview.after?.[field] ?? null;
    const nowValue = now.read ? (now.before?.[field] ?? null) : null;
    const after = live ? (live.after?.[field] ?? null) : afterAtRequest;
    const basis = live ? live.before : preview.before;
    const row: EffectRow = {
      field,
      atRequest,
      newAtRequest: preview.before === null,
      now: now.read ? { read: true, value: nowValue, isNew: now.before === null } : { read: false, why: now.why },
      after,
      afterFrom: live ? "now" : "request",
      changes: basis !== null && !same(basis[field] ?? null, after),
      moved: now.read && preview.before !== null && !same(nowValue, atRequest),
    };
    if (live && !same(after, afterAtRequest)) row.afterAtRequest = afterAtRequest;
    return row;
  });
}
