import { createHmac, timingSafeEqual } from "node:crypto";
import { canonicalJsonOfPlainJson } from "@/lib/canonical/canonical-json";
import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";
import type { AuditBody } from "@/lib/db/audit-body";

/**
 * MACs (HMAC-SHA256, key from lib/audit/audit-keys.ts, never in the database):
 * - an event's, made by the console when it writes the event, over its uid and body without the
 *   paths the writing statement fills in itself (`omits`, e.g. a vote's resulting status);
 * - a seal's, made when the event joins the tenant's tree, over its place and hashes.
 * A row inserted, edited or re-sealed with database access alone fails them.
 */
export function eventMac(key: Buffer, input: { uid: string; body: AuditBody; omits: readonly string[] }): string {
  const covered = canonicalJsonOfPlainJson({ v: 1, uid: input.uid, omits: [...input.omits], body: withoutPaths(input.body, input.omits) });
  return createHmac("sha256", key).update(covered, "utf8").digest("hex");
}

export function sealMac(key: Buffer, seal: { tenantId: string; seq: bigint; eventId: bigint; leafHash: string; nodes: readonly string[] }): string {
  return createHmac("sha256", key).update(`seal/v1|${seal.tenantId}|${seal.seq}|${seal.eventId}|${seal.leafHash}|${seal.nodes.join(",")}`).digest("hex");
}

/** Constant-time comparison of two hex MACs. */
export function macsEqual(a: string | null, b: string): boolean {
  if (a === null || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/**
 * The body without `paths` (top-level keys like "status", or "data.approvals"). A path the body
 * lacks is kept absent; its presence is what the MAC cannot vouch for.
 */
export function withoutPaths(body: AuditBody, paths: readonly string[]): JsonObject {
  if (paths.length === 0) return body as unknown as JsonObject;
  const copy: Record<string, JsonValue> = { ...(body as unknown as JsonObject) };
  for (const path of paths) {
    const [head, ...rest] = path.split(".");
    if (rest.length === 0) {
      delete copy[head];
      continue;
    }
    const inner = copy[head];
    if (inner && typeof inner === "object" && !Array.isArray(inner)) {
      copy[head] = withoutPaths(inner as unknown as AuditBody, [rest.join(".")]);
    }
  }
  return copy;
}
