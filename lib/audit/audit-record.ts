import { canonicalJson } from "@/lib/canonical/canonical-json";
import type { JsonObject } from "@/lib/canonical/json-value";
import { sha256Hex } from "@/lib/canonical/sha256-hex";

export const GENESIS_HASH = "0".repeat(64);

/** Every column an audit event's hash covers (all but id and hash itself). */
export type AuditRecord = {
  tenantId: string;
  seq: string;
  at: string;
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
  prevHash: string;
};

/** SHA-256 over the RFC 8785 canonical JSON of the record, which includes the previous hash. */
export function auditEventHash(record: AuditRecord): string {
  return sha256Hex(canonicalJson({ v: 1, ...record }));
}
