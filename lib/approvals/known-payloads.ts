import type { JsonObject } from "@/lib/canonical/json-value";
import type { RiskLevel } from "@/lib/generated/prisma/enums";

/**
 * What this process wrote for a revision: its payload and request-snapshot hash, as they were
 * hashed. Revisions are immutable apart from being superseded, so a proposal made here can be
 * executed without reading them back; the claim statement still checks, in the same statement
 * that consumes the approval, that the stored revision and snapshot are exactly these (so a
 * payload changed behind the app's back is never executed: the claim fails and the
 * transactional path finds and records the mismatch).
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
};

const known = new Map<string, KnownPayload>();
const MAX_KNOWN = 10_000;

const keyOf = (actionId: string, payloadHash: string) => `${actionId}:${payloadHash}`;

export function rememberPayload(actionId: string, payloadHash: string, payload: KnownPayload): void {
  if (known.size >= MAX_KNOWN) known.delete(known.keys().next().value!);
  known.set(keyOf(actionId, payloadHash), payload);
}

/** The payload, once: an approval is used once, so is this entry. */
export function takeKnownPayload(actionId: string, payloadHash: string): KnownPayload | undefined {
  const key = keyOf(actionId, payloadHash);
  const payload = known.get(key);
  known.delete(key);
  return payload;
}
