import type { JsonObject } from "@/lib/canonical/json-value";
import type { RiskLevel } from "@/lib/generated/prisma/enums";

/**
 * What this process wrote for a revision: its payload and request-snapshot hash, as they were
 * hashed, and who may vote on it. Revisions are immutable apart from being superseded, so a
 * proposal made here can be voted on and executed without reading it back. The statements that
 * vote and claim still check everything they rest on in the same statement that writes (the
 * stored revision and snapshot are exactly these, the voter is eligible, not the requester nor the
 * editor, the approval count is as expected), so a row changed behind the app's back, or by
 * another process, makes them write nothing and the transactional path decide.
 */
export type KnownPayload = {
  kind: "tool" | "code";
  tool: string;
  taskId: string | null;
  requesterLabel: string;
  riskLevel: RiskLevel;
  revisionId: string;
  revision: number;
  args: JsonObject | null;
  code: string | null;
  language: string | null;
  sandboxSpec: JsonObject | null;
  policyVersion: number;
  requestSnapshotHash: string | null;
  /** What a vote is checked against (the vote statement re-checks all of it). */
  eligibleRoles: string[];
  requesterUserId: string | null;
  createdByUserId: string | null;
  quorum: number;
  approvals: number;
};

// One per process, also when Next.js bundles this module more than once.
const store = globalThis as unknown as { countersignKnownPayloads?: Map<string, KnownPayload> };
const known = (store.countersignKnownPayloads ??= new Map<string, KnownPayload>());
const MAX_KNOWN = 10_000;

const keyOf = (actionId: string, payloadHash: string) => `${actionId}:${payloadHash}`;

export function rememberPayload(actionId: string, payloadHash: string, payload: KnownPayload): void {
  if (known.size >= MAX_KNOWN) known.delete(known.keys().next().value!);
  known.set(keyOf(actionId, payloadHash), payload);
}

/** The payload, for a vote on it; the entry stays for the execution. */
export function peekKnownPayload(actionId: string, payloadHash: string): KnownPayload | undefined {
  return known.get(keyOf(actionId, payloadHash));
}

/** The payload, once: an approval is used once, so is this entry. */
export function takeKnownPayload(actionId: string, payloadHash: string): KnownPayload | undefined {
  const key = keyOf(actionId, payloadHash);
  const payload = known.get(key);
  known.delete(key);
  return payload;
}

/** Forgets everything (as a restarted process would). */
export function forgetKnownPayloads(): void {
  known.clear();
}
