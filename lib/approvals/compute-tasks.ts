// Pure functions of plain data whose cost grows with the input: they run on the compute pool
// (lib/compute/compute-pool.ts) through the tasks declared in compute.ts beside this file.
import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";
import type { PayloadHash } from "@/lib/canonical/payload-hash";
import { revisionHash, type RevisionPayload } from "@/lib/approvals/action-revision";
import { diffCode, diffFields, type FieldChange, type LineChange } from "@/lib/approvals/payload-diff";
import { snapshotHash } from "@/lib/approvals/snapshot-hash";
import type { Policy } from "@/lib/policy/policy-document";
import { scanPython } from "@/lib/sandbox/prescan";
import { judgeScanned, type JudgeInput, type Judgement } from "@/lib/approvals/judge-payload";

// This thread's parsed policies, by cache key; the same object each time, so evaluatePolicy's
// compiled cache holds.
const policies = new Map<string, Policy>();
const MAX_POLICIES = 256;

function policyOf({ json, cacheKey }: JudgeInput["policy"]): Policy {
  let policy = policies.get(cacheKey);
  if (!policy) {
    if (policies.size >= MAX_POLICIES) policies.clear();
    policy = JSON.parse(json) as Policy;
    policies.set(cacheKey, policy);
  }
  return policy;
}

/** One payload's pre-scan, risk tags, policy verdict and hash. */
export async function judgePayload(input: JudgeInput): Promise<Judgement> {
  const scan = input.code === null ? null : await scanPython(input.code, { bannedModules: input.bannedModules });
  return judgeScanned(input, policyOf(input.policy), scan);
}

/** SPEC invariant 2's hash of a stored or new revision. */
export function hashRevision(payload: RevisionPayload): PayloadHash {
  return revisionHash(payload);
}


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
