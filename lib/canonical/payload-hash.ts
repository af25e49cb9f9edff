import { assertCanonicalizable } from "./assert-canonicalizable";
import { canonicalJson } from "./canonical-json";
import { InvalidPayloadError } from "./invalid-payload-error";
import type { JsonObject } from "./json-value";
import { sha256Hex } from "./sha256-hex";

/**
 * Exactly what SPEC invariant 2 binds a decision to. A tool call carries `args`;
 * a code action carries `code`, `language` and its `sandbox` spec (image id and
 * limits) instead — never both.
 */
export type PayloadFields = {
  v: 1;
  tenant: string;
  tool: string;
  args?: JsonObject;
  code?: string;
  language?: string;
  sandbox?: JsonObject | null;
  /**
   * Code only: the data sets mounted at /mnt/data, each `{name, sha256, bytes}` — so an approval
   * binds the exact bytes the code reads. Absent when none are named (older hashes unchanged).
   */
  datasets?: JsonObject[];
  revision: number;
  policyVersion: number;
};

export type PayloadHash = { hash: string; algorithm: "sha256-jcs"; version: 1 };

const ALLOWED_FIELDS = new Set(["v", "tenant", "tool", "args", "code", "language", "sandbox", "datasets", "revision", "policyVersion"]);

/**
 * The canonical JSON payloadHash hashes; fields that do not apply are absent, not null:
 * `{v, tenant, tool, args | code, language, sandbox, revision, policyVersion}`.
 */
export function payloadCanonicalJson(p: PayloadFields): string {
  return canonicalJson(payloadDocument(p));
}

/** SHA-256 over payloadCanonicalJson(p), lower-case hex. Throws InvalidPayloadError on malformed fields. */
export function payloadHash(p: PayloadFields): PayloadHash {
  return { hash: sha256Hex(payloadCanonicalJson(p)), algorithm: "sha256-jcs", version: 1 };
}

function payloadDocument(p: PayloadFields): JsonObject {
  const fail = (message: string, path?: string): never => {
    throw new InvalidPayloadError("invalid_payload_fields", message, path);
  };
  if (typeof p !== "object" || p === null) fail("Payload fields must be an object.");
  for (const key of Object.keys(p)) {
    if (!ALLOWED_FIELDS.has(key)) fail(`Unknown payload field "${key}".`, key);
  }
  if (p.v !== 1) fail("Only payload version 1 is supported.", "v");
  if (typeof p.tenant !== "string" || p.tenant === "") fail("tenant must be a non-empty string.", "tenant");
  if (typeof p.tool !== "string" || p.tool === "") fail("tool must be a non-empty string.", "tool");
  if (!Number.isSafeInteger(p.revision) || p.revision < 1) fail("revision must be an integer ≥ 1.", "revision");
  if (!Number.isSafeInteger(p.policyVersion) || p.policyVersion < 0) {
    fail("policyVersion must be an integer ≥ 0.", "policyVersion");
  }
  const head = { v: 1, tenant: p.tenant, tool: p.tool };
  const tail = { revision: p.revision, policyVersion: p.policyVersion };

  const hasArgs = p.args !== undefined;
  const hasCode = p.code !== undefined;
  if (hasArgs === hasCode) fail("Exactly one of args or code must be present.");

  if (hasArgs) {
    if (p.language !== undefined) fail("language applies only to code actions.", "language");
    if (p.sandbox !== undefined && p.sandbox !== null) fail("sandbox applies only to code actions.", "sandbox");
    if (p.datasets !== undefined) fail("datasets apply only to code actions.", "datasets");
    assertPlainObject(p.args, "args");
    return { ...head, args: p.args as JsonObject, ...tail };
  }

  if (typeof p.code !== "string" || p.code === "") fail("code must be a non-empty string.", "code");
  if (typeof p.language !== "string" || p.language === "") fail("A code action needs its language.", "language");
  if (p.sandbox === undefined || p.sandbox === null) fail("A code action needs its sandbox spec.", "sandbox");
  assertPlainObject(p.sandbox, "sandbox");
  assertCanonicalizable(p.code, { path: "code" });
  assertCanonicalizable(p.language, { path: "language" });
  if (p.datasets !== undefined) {
    if (!Array.isArray(p.datasets) || p.datasets.length === 0) fail("datasets must be a non-empty array when present.", "datasets");
    p.datasets.forEach((d, i) => assertPlainObject(d, `datasets[${i}]`));
  }
  return {
    ...head,
    code: p.code as string,
    language: p.language as string,
    sandbox: p.sandbox as JsonObject,
    ...(p.datasets !== undefined ? { datasets: p.datasets } : {}),
    ...tail,
  };
}

function assertPlainObject(value: unknown, path: string): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidPayloadError("invalid_payload_fields", `${path} must be a JSON object.`, path);
  }
  assertCanonicalizable(value, { path });
}
