import { canonicalJson } from "@/lib/canonical/canonical-json";
import type { JsonObject } from "@/lib/canonical/json-value";
import { sha256Hex } from "@/lib/canonical/sha256-hex";

export type SubmittedRequest = {
  tool: string;
  /** The arguments as the tool's schema parsed them (defaults filled, absent optionals absent). */
  args: JsonObject;
  reason?: string;
  untrustedValues?: string[];
};

/**
 * What an Idempotency-Key on a submit is bound to: SHA-256 over the RFC 8785 JSON of the request
 * as the gate understood it. Arguments count after parsing, so key order, a `null` for an absent
 * optional argument, or a default sent or left out make the same request; any other difference
 * (arguments, reason, untrusted values) makes another one.
 */
export function submitRequestHash(request: SubmittedRequest): string {
  return sha256Hex(
    canonicalJson({
      v: 1,
      tool: request.tool,
      args: request.args,
      reason: request.reason ?? "",
      untrustedValues: request.untrustedValues ?? [],
    }),
  );
}
