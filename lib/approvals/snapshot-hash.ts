import { canonicalJson } from "@/lib/canonical/canonical-json";
import type { JsonObject } from "@/lib/canonical/json-value";
import { sha256Hex } from "@/lib/canonical/sha256-hex";

export function snapshotHash(snapshot: JsonObject | null): string {
  return snapshot ? sha256Hex(canonicalJson(snapshot)) : sha256Hex("null");
}
