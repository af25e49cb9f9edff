import { canonicalJson } from "@/lib/canonical/canonical-json";
import type { JsonObject } from "@/lib/canonical/json-value";
import { sha256Hex } from "@/lib/canonical/sha256-hex";

export const GENESIS_HASH = "0".repeat(64);

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

/** RFC 8785 canonical JSON of the body: the part of the hashed text computed in JavaScript. */
export function auditBodyJson(body: AuditBody): string {
  return canonicalJson({ v: 2, ...body });
}

/**
 * An event's hash: SHA-256 of `prevHash|seq|at|canonical body`, with `at` as an ISO-8601 UTC
 * timestamp in milliseconds. Sealing computes it when the event joins the chain
 * (seal-audit-chain.ts) and the verifier recomputes it from the stored columns.
 */
export function auditEventHash(link: { prevHash: string; seq: string; at: string }, bodyJson: string): string {
  return sha256Hex(`${link.prevHash}|${link.seq}|${link.at}|${bodyJson}`);
}

/** The body of a stored event, from its columns (what sealing hashes and the verifier re-hashes). */
export function auditBodyOfRow(row: {
  tenantId: string; actorType: string; actorId: string | null; actorLabel: string; type: string; outcome: string;
  subjectType: string; subjectId: string | null; actionId: string | null; tool: string | null; verdict: string | null;
  riskLevel: string | null; reviewerId: string | null; requester: string | null; status: string | null; data: unknown;
}): AuditBody {
  return {
    tenantId: row.tenantId,
    actorType: row.actorType,
    actorId: row.actorId,
    actorLabel: row.actorLabel,
    type: row.type,
    outcome: row.outcome,
    subjectType: row.subjectType,
    subjectId: row.subjectId,
    actionId: row.actionId,
    tool: row.tool,
    verdict: row.verdict,
    riskLevel: row.riskLevel,
    reviewerId: row.reviewerId,
    requester: row.requester,
    status: row.status,
    data: row.data as JsonObject,
  };
}
