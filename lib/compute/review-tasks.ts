// The review pages' work whose cost grows with the input, as pure functions of plain data: the
// diff a new revision shows against the one it replaces (field by field, a changed text word by
// word, code line by line), and a state read now compared with its request snapshot (hash and
// field diff), untrusted text with its hidden characters and lookalike letters revealed, and an
// execution's result as the action page shows it (cut to a bound).
// They run in the compute pool's worker threads (compute-pool.ts), never on a request thread.
import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";
import { diffCode, diffFields, type FieldChange, type LineChange } from "@/lib/approvals/payload-diff";
import { snapshotHash } from "@/lib/approvals/snapshot-hash";
import { revealText, type RevealedSegment } from "@/lib/review/reveal-text";
import { resultText, type ResultText } from "@/lib/review/result-text";

export type RevisionDiffInput = {
  before: JsonObject | null;
  after: JsonObject | null;
  /** Prefixed to every field's path (a state-change revision's fields are `snapshot.<field>`). */
  prefix: string;
  /** Diff a changed text word by word. */
  words: boolean;
  /** Code tools: the two versions of the code. */
  code: { before: string; after: string } | null;
};

export type RevisionDiff = { fields: FieldChange[]; code?: LineChange[] };

export function diffRevision(input: RevisionDiffInput): RevisionDiff {
  return {
    fields: diffFields(input.before, input.after, input.prefix, { words: input.words }),
    ...(input.code ? { code: diffCode(input.code.before, input.code.after) } : {}),
  };
}

/** A state read now, and the snapshot taken at request it is compared with. */
export type StateCompareInput = { atRequest: JsonValue; atRequestHash: string; now: JsonObject | null };

/** The state now's hash, and what changed since request (null: the same hash, nothing changed). */
export type StateComparison = { hash: string; changes: FieldChange[] | null };

/** Many states at once (one review-queue page is one task). */
export function compareStates(items: StateCompareInput[]): StateComparison[] {
  return items.map(({ atRequest, atRequestHash, now }) => {
    const hash = snapshotHash(now);
    if (hash === atRequestHash) return { hash, changes: null };
    const before = atRequest && typeof atRequest === "object" && !Array.isArray(atRequest) ? atRequest : null;
    return { hash, changes: diffFields(before, now) };
  });
}

/** Each text as a reviewer must see it (reveal-text.ts), in order. */
export function revealTexts(texts: string[]): RevealedSegment[][] {
  return texts.map(revealText);
}

/** Each stored execution result as the action page shows it (result-text.ts), in order. */
export function resultTexts(storedJsons: string[]): ResultText[] {
  return storedJsons.map((json) => resultText(json));
}
