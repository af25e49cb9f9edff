import type { JsonObject } from "@/lib/canonical/json-value";

/** What an audit event says, apart from its place in the chain (seq, time, previous hash). */
export type AuditBody = {
  tenantId: string;
  actorType: string;
  actorId: string | null;
  actorLabel: string;
  type: string;
  outcome: string;
  subjectType: string;
  subjectId: string | null;
  actionId: string | null;
  tool: string | null;
  verdict: string | null;
  riskLevel: string | null;
  reviewerId: string | null;
  requester: string | null;
  status: string | null;
  data: JsonObject;
};

/**
 * An event as the console writes it: its body, the uid it chose, and its MAC over both
 * (lib/audit/event-mac.ts) — leaving out `macOmits`, the body paths the writing statement fills in.
 */
export type AttestedAuditBody = AuditBody & { uid: string; mac: string; macOmits: string[] };

/** One finding of an audit verification, as stored with the verification and in checkpoints. */
export type AuditProblem = {
  problem:
    | "missing" | "reordered" | "edited" | "forged" | "seal_forged" | "tree_edited" | "foreign_event"
    | "checkpoint_mismatch" | "checkpoint_signature" | "checkpoint_malformed" | "rolled_back" | "forked" | "replayed"
    | "unsealed" | "quarantined" | "legacy_count";
  seq?: string;
  eventId?: string;
  message: string;
};
