import { canonicalJson } from "@/lib/canonical/canonical-json";
import { sha256Hex } from "@/lib/canonical/sha256-hex";

/**
 * What a reviewer's passkey signs when they approve: the SHA-256 of this receipt's canonical JSON
 * is the WebAuthn challenge (docs/DESIGN.md, "A signed approval binds what the reviewer approved").
 */
export type ApprovalReceipt = {
  v: 1;
  tenant: string;
  action: string;
  revision: number;
  payloadHash: string;
  policyVersion: number;
  snapshotHash: string;
  verdict: "approve";
  /** The action's expiry (ISO 8601, UTC, milliseconds), or null when it has none. */
  expiry: string | null;
  nonce: string;
  reviewer: string;
  /** The standing grant the approval also approves: its terms' hash (lib/grants/grant-terms.ts). Absent: none. */
  grant?: string;
};

/** The receipt's canonical JSON text (what is stored, and what is hashed). */
export function receiptText(receipt: ApprovalReceipt): string {
  return canonicalJson(receipt);
}

/** SHA-256 (hex) of the receipt's canonical JSON. */
export function receiptHashOf(text: string): string {
  return sha256Hex(text);
}

/** The WebAuthn challenge for a receipt hash: its 32 bytes, base64url (as clientDataJSON carries it). */
export function challengeOfReceiptHash(hashHex: string): string {
  return Buffer.from(hashHex, "hex").toString("base64url");
}
