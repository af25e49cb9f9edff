import { canonicalJsonOfPlainJson } from "@/lib/canonical/canonical-json";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { AuditBody } from "@/lib/db/audit-body";

/** A sealed event's leaf in its tenant's Merkle tree: everything the verifier checks about it. */
export type AuditLeaf = AuditBody & { v: 3; seq: string; eventId: string; uid: string; at: string; mac: string | null; macOmits: string[] };

export function auditLeaf(row: { seq: bigint; id: bigint; uid: string; at: Date; mac: string | null; macOmits: string[] }, body: AuditBody): AuditLeaf {
  return { v: 3, seq: row.seq.toString(), eventId: row.id.toString(), uid: row.uid, at: row.at.toISOString(), mac: row.mac, macOmits: row.macOmits, ...body };
}

/** The leaf's bytes: RFC 8785 canonical JSON (what its RFC 6962 leaf hash covers). */
export function auditLeafBytes(leaf: AuditLeaf): Buffer {
  return Buffer.from(canonicalJsonOfPlainJson(leaf as unknown as JsonObject), "utf8");
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
