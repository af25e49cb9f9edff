import { createHash } from "node:crypto";

/** Lower-case hex SHA-256 of the UTF-8 encoding of `s`. */
export function sha256Hex(s: string): string {
  return createHash("sha256").update(s, "utf8").digest("hex");
}
