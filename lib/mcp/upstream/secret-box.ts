import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { derivedConsoleKey } from "@/lib/audit/audit-keys";
import { AppError } from "@/lib/errors";

/**
 * An upstream server's secrets (environment values, header values) at rest: AES-256-GCM under a
 * key derived from the console's secret seed (lib/audit/audit-keys.ts) with its own label, so the
 * database alone never yields them. The server's tenant and id are the additional data: a sealed
 * value copied onto another server's row does not open there.
 */
const KEY_LABEL = "countersign/mcp-upstream-secrets/v1";
const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export type SecretBinding = { tenantId: string; serverId: string };

function additionalData(bind: SecretBinding): Buffer {
  return Buffer.from(`countersign/mcp-server/${bind.tenantId}/${bind.serverId}`, "utf8");
}

/** Seals name → value pairs; null when there are none. */
export function sealSecrets(secrets: Record<string, string>, bind: SecretBinding): string | null {
  if (Object.keys(secrets).length === 0) return null;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", derivedConsoleKey(KEY_LABEL), iv);
  cipher.setAAD(additionalData(bind));
  const body = Buffer.concat([cipher.update(JSON.stringify(secrets), "utf8"), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`;
}

/** The name → value pairs sealed for this server; throws a one-line AppError when they cannot be opened. */
export function openSecrets(sealed: string | null, bind: SecretBinding & { serverName: string }): Record<string, string> {
  if (sealed === null) return {};
  const unreadable = new AppError(
    "secrets_unreadable",
    `The secrets of MCP server ${bind.serverName} cannot be opened with this console's key (was AUDIT_SIGNING_KEY changed?): an admin must enter them again.`,
    409,
  );
  const [version, text] = sealed.split(":", 2);
  if (version !== VERSION || !text) throw unreadable;
  const raw = Buffer.from(text, "base64url");
  if (raw.length < IV_BYTES + TAG_BYTES) throw unreadable;
  try {
    const decipher = createDecipheriv("aes-256-gcm", derivedConsoleKey(KEY_LABEL), raw.subarray(0, IV_BYTES));
    decipher.setAAD(additionalData(bind));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
    const parsed: unknown = JSON.parse(plain);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw unreadable;
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  } catch {
    throw unreadable;
  }
}

/** Every secret value (long enough to be one) in `text` replaced, before it is shown, logged or stored. */
export function redactSecrets(text: string, secrets: Record<string, string>): string {
  let out = text;
  for (const value of Object.values(secrets)) {
    if (value.length >= 4) out = out.split(value).join("[secret]");
  }
  return out;
}
