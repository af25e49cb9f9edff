import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from "node:crypto";

/**
 * C2SP signed notes, tlog checkpoints and cosignatures (c2sp.org/signed-note, /tlog-checkpoint,
 * /tlog-cosignature), Ed25519 only, byte-compatible with golang.org/x/mod/sumdb/note. A size past
 * Number.MAX_SAFE_INTEGER is refused when parsed: far beyond any audit log, it keeps the arithmetic plain.
 */

/** Signature type bytes: 0x01 an Ed25519 note signature, 0x04 an Ed25519 cosignature/v1. */
export const SIG_ED25519 = 0x01;
export const SIG_COSIGNATURE_V1 = 0x04;
export type SignatureType = typeof SIG_ED25519 | typeof SIG_COSIGNATURE_V1;

export class NoteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NoteError";
  }
}

export type Ed25519KeyPair = { seed: Buffer; publicKey: Buffer; privateKey: KeyObject };

/** A signer: a named Ed25519 key of one signature type. */
export type NoteSigner = { name: string; type: SignatureType; keyId: Buffer; publicKey: Buffer; privateKey: KeyObject };

/** A parsed verifier key `<name>+<hex key id>+<base64(type || public key)>`. */
export type VerifierKey = { name: string; type: SignatureType; keyId: Buffer; publicKey: Buffer; text: string };

export type NoteSignature = { name: string; keyId: Buffer; signature: Buffer; line: string };

export type Checkpoint = { origin: string; size: number; rootHash: Buffer; extensions: string[] };

const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const SIG_PREFIX = "— ";
const MAX_SIGNATURES = 100;

export function keyPairFromSeed(seed: Uint8Array): Ed25519KeyPair {
  if (seed.length !== 32) throw new NoteError(`an Ed25519 seed is 32 bytes, got ${seed.length}`);
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" });
  const spki = createPublicKey(privateKey).export({ format: "der", type: "spki" });
  return { seed: Buffer.from(seed), publicKey: Buffer.from(spki.subarray(spki.length - 32)), privateKey };
}

function publicKeyObject(raw: Buffer): KeyObject {
  // SPKI for Ed25519: a fixed 12-byte header, then the 32-byte key.
  return createPublicKey({ key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), raw]), format: "der", type: "spki" });
}

/** A key name: non-empty, no "+", no whitespace, no control characters, well-formed Unicode. */
export function isValidKeyName(name: string): boolean {
  return name.length > 0 && !/[+\s\p{Cc}\p{Cs}]/u.test(name);
}

/** The 4-byte key id: SHA-256(name || "\n" || type || public key)[:4]. */
export function keyId(name: string, type: SignatureType, publicKey: Uint8Array): Buffer {
  return createHash("sha256").update(name, "utf8").update("\n").update(Buffer.from([type])).update(publicKey).digest().subarray(0, 4);
}

export function noteSigner(name: string, seed: Uint8Array, type: SignatureType = SIG_ED25519): NoteSigner {
  if (!isValidKeyName(name)) throw new NoteError(`invalid key name ${JSON.stringify(name)}`);
  const { publicKey, privateKey } = keyPairFromSeed(seed);
  return { name, type, keyId: keyId(name, type, publicKey), publicKey, privateKey };
}

/** The verifier key string `<name>+<8 hex key id>+<base64(type || public key)>`. */
export function verifierKey(name: string, publicKey: Uint8Array, type: SignatureType = SIG_ED25519): string {
  if (!isValidKeyName(name)) throw new NoteError(`invalid key name ${JSON.stringify(name)}`);
  if (publicKey.length !== 32) throw new NoteError(`an Ed25519 public key is 32 bytes, got ${publicKey.length}`);
  return `${name}+${keyId(name, type, publicKey).toString("hex")}+${Buffer.concat([Buffer.from([type]), publicKey]).toString("base64")}`;
}

/** The signer key string of golang.org/x/mod/sumdb/note: `PRIVATE+KEY+<name>+<hex key id>+<base64(0x01 || seed)>`. */
export function signerKey(name: string, seed: Uint8Array): string {
  const { publicKey } = keyPairFromSeed(seed);
  return `PRIVATE+KEY+${name}+${keyId(name, SIG_ED25519, publicKey).toString("hex")}+${Buffer.concat([Buffer.from([SIG_ED25519]), seed]).toString("base64")}`;
}

/** Decodes standard base64 with padding, refusing anything that does not re-encode to itself. */
export function strictBase64(text: string): Buffer | null {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  const bytes = Buffer.from(text, "base64");
  return bytes.toString("base64") === text ? bytes : null;
}

const HEX_KEY_ID = /^[0-9a-f]{8}$/;

export function parseVerifierKey(text: string): VerifierKey {
  const parts = text.split("+");
  // The base64 part may itself contain "+": name and key id are the first two fields.
  if (parts.length < 3) throw new NoteError(`malformed verifier key: expected <name>+<key id>+<key>`);
  const [name, hexId] = parts;
  const key = strictBase64(parts.slice(2).join("+"));
  if (!isValidKeyName(name)) throw new NoteError(`malformed verifier key: invalid key name ${JSON.stringify(name)}`);
  if (!HEX_KEY_ID.test(hexId)) throw new NoteError(`malformed verifier key: key id must be 8 lower-case hex digits`);
  if (!key || key.length !== 33) throw new NoteError(`malformed verifier key: key must be base64 of a type byte and 32 bytes`);
  const type = key[0];
  if (type !== SIG_ED25519 && type !== SIG_COSIGNATURE_V1) throw new NoteError(`unsupported verifier key type 0x${type.toString(16).padStart(2, "0")}`);
  const publicKey = key.subarray(1);
  const id = keyId(name, type, publicKey);
  if (id.toString("hex") !== hexId) throw new NoteError(`verifier key id ${hexId} does not match its name and key (${id.toString("hex")})`);
  return { name, type, keyId: id, publicKey, text };
}

/** Parses a golang.org/x/mod/sumdb/note signer key (Ed25519) into a signer. */
export function parseSignerKey(text: string): NoteSigner {
  const parts = text.split("+");
  if (parts.length < 5 || parts[0] !== "PRIVATE" || parts[1] !== "KEY") throw new NoteError("malformed signer key: expected PRIVATE+KEY+<name>+<key id>+<key>");
  const [, , name, hexId] = parts;
  const key = strictBase64(parts.slice(4).join("+"));
  if (!HEX_KEY_ID.test(hexId)) throw new NoteError("malformed signer key: key id must be 8 lower-case hex digits");
  if (!key || key.length !== 33 || key[0] !== SIG_ED25519) throw new NoteError("malformed signer key: key must be base64 of 0x01 and a 32-byte seed");
  const signer = noteSigner(name, key.subarray(1));
  if (signer.keyId.toString("hex") !== hexId) throw new NoteError(`signer key id ${hexId} does not match its name and key`);
  return signer;
}

// ---- checkpoints --------------------------------------------------------------------------------

const DECIMAL = /^(?:0|[1-9][0-9]*)$/;

export function formatCheckpoint({ origin, size, rootHash, extensions = [] }: { origin: string; size: number; rootHash: Uint8Array; extensions?: readonly string[] }): string {
  if (origin.length === 0 || /\p{Cc}/u.test(origin)) throw new NoteError("a checkpoint origin must be a non-empty line");
  if (!Number.isSafeInteger(size) || size < 0) throw new NoteError(`a checkpoint tree size must be a non-negative safe integer, got ${size}`);
  if (rootHash.length !== 32) throw new NoteError(`a checkpoint root hash is 32 bytes, got ${rootHash.length}`);
  for (const line of extensions) if (line.length === 0 || /\p{Cc}/u.test(line)) throw new NoteError("a checkpoint extension must be a non-empty line");
  return [origin, String(size), Buffer.from(rootHash).toString("base64"), ...extensions].join("\n") + "\n";
}

export function parseCheckpoint(body: string): Checkpoint {
  if (!body.endsWith("\n")) throw new NoteError("malformed checkpoint: it must end with a newline");
  const lines = body.slice(0, -1).split("\n");
  if (lines.length < 3) throw new NoteError("malformed checkpoint: it needs an origin, a tree size and a root hash line");
  const [origin, sizeText, rootText, ...extensions] = lines;
  if (origin.length === 0) throw new NoteError("malformed checkpoint: empty origin");
  if (!DECIMAL.test(sizeText)) throw new NoteError(`malformed checkpoint: tree size ${JSON.stringify(sizeText)} is not a decimal number`);
  const size = Number(sizeText);
  if (!Number.isSafeInteger(size)) throw new NoteError(`checkpoint tree size ${sizeText} is larger than 2^53 − 1`);
  const rootHash = strictBase64(rootText);
  if (!rootHash || rootHash.length !== 32) throw new NoteError("malformed checkpoint: the root hash must be base64 of 32 bytes");
  if (extensions.some((line) => line.length === 0)) throw new NoteError("malformed checkpoint: empty extension line");
  if (/\p{Cc}/u.test(lines.join(""))) throw new NoteError("malformed checkpoint: control character");
  return { origin, size, rootHash, extensions };
}

// ---- notes ----------------------------------------------------------------------------------------

function signatureLine(name: string, bytes: Buffer): string {
  return `${SIG_PREFIX}${name} ${bytes.toString("base64")}\n`;
}

function assertNoteText(body: string): void {
  if (!body.endsWith("\n")) throw new NoteError("malformed note: the text must end with a newline");
  if (/\p{Cs}/u.test(body)) throw new NoteError("malformed note: the text is not well-formed Unicode");
  if (/[\x00-\x09\x0b-\x1f]/.test(body)) throw new NoteError("malformed note: control character other than newline (CR, tab, …)");
}

/** Signs a note text with an Ed25519 note key and returns the note with its one signature. */
export function signNote(body: string, signer: NoteSigner): string {
  if (signer.type !== SIG_ED25519) throw new NoteError("signNote needs an Ed25519 note key (type 0x01); use cosign for cosignatures");
  assertNoteText(body);
  const signature = sign(null, Buffer.from(body, "utf8"), signer.privateKey);
  return `${body}\n${signatureLine(signer.name, Buffer.concat([signer.keyId, signature]))}`;
}

/** Splits a note into its text and signature lines, refusing anything malformed per signed-note. */
export function parseNote(text: string): { body: string; signatures: NoteSignature[] } {
  assertNoteText(text);
  const split = text.lastIndexOf("\n\n");
  if (split < 0) throw new NoteError("malformed note: no blank line before the signatures");
  const body = text.slice(0, split + 1);
  const block = text.slice(split + 2);
  if (block.length === 0) throw new NoteError("malformed note: no signatures");
  const signatures: NoteSignature[] = [];
  for (const line of block.slice(0, -1).split("\n")) {
    if (!line.startsWith(SIG_PREFIX)) throw new NoteError(`malformed note: signature line does not start with "— ": ${JSON.stringify(line.slice(0, 60))}`);
    const rest = line.slice(SIG_PREFIX.length);
    const space = rest.indexOf(" ");
    if (space < 0) throw new NoteError("malformed note: signature line without a key name");
    const name = rest.slice(0, space);
    const bytes = strictBase64(rest.slice(space + 1));
    if (!isValidKeyName(name)) throw new NoteError(`malformed note: invalid key name ${JSON.stringify(name)}`);
    if (!bytes || bytes.length < 5) throw new NoteError(`malformed note: the signature of ${name} is not base64 of a key id and a signature`);
    signatures.push({ name, keyId: bytes.subarray(0, 4), signature: bytes.subarray(4), line: line + "\n" });
    if (signatures.length > MAX_SIGNATURES) throw new NoteError(`malformed note: more than ${MAX_SIGNATURES} signatures`);
  }
  return { body, signatures };
}

export type NoteVerification = {
  body: string;
  /** The trusted keys whose signature verified, with the cosignature time for cosigners (unix seconds). */
  verified: { key: VerifierKey; time?: number }[];
  /** Signatures from keys not among the verifiers (ignored, as the spec says). */
  unknown: NoteSignature[];
};

/**
 * Verifies a note against trusted keys (Ed25519 0x01, cosignature/v1 0x04). Unknown keys' signatures
 * are ignored and listed; one claiming a trusted key that does not verify voids the note (as in
 * Go). Returns the keys that verified: the caller decides how many it needs.
 */
export function verifyNote(text: string, verifiers: readonly VerifierKey[]): NoteVerification {
  const { body, signatures } = parseNote(text);
  const verified: NoteVerification["verified"] = [];
  const unknown: NoteSignature[] = [];
  const seen = new Set<string>();
  for (const sig of signatures) {
    const key = verifiers.find((v) => v.name === sig.name && v.keyId.equals(sig.keyId));
    if (!key) {
      unknown.push(sig);
      continue;
    }
    const id = `${key.name}+${key.keyId.toString("hex")}`;
    if (seen.has(id)) continue;
    seen.add(id);
    if (key.type === SIG_COSIGNATURE_V1) {
      const time = cosignatureTime(body, sig, key);
      if (time === null) throw new NoteError(`invalid cosignature by ${key.name}`);
      verified.push({ key, time });
    } else {
      if (!verify(null, Buffer.from(body, "utf8"), publicKeyObject(key.publicKey), sig.signature)) throw new NoteError(`invalid signature by ${key.name}`);
      verified.push({ key });
    }
  }
  return { body, verified, unknown };
}

// ---- cosignatures ---------------------------------------------------------------------------------

function cosignedMessage(checkpointBody: string, time: number): Buffer {
  return Buffer.from(`cosignature/v1\ntime ${time}\n${checkpointBody}`, "utf8");
}

/** A cosignature/v1 line for a checkpoint body: `— <name> base64(key id || time (8 bytes BE) || signature)`. */
export function cosign(checkpointBody: string, witness: NoteSigner, time: number): string {
  if (witness.type !== SIG_COSIGNATURE_V1) throw new NoteError("cosign needs a cosignature/v1 key (type 0x04)");
  if (!Number.isSafeInteger(time) || time < 0) throw new NoteError(`a cosignature time is non-negative unix seconds, got ${time}`);
  parseCheckpoint(checkpointBody);
  const timestamp = Buffer.alloc(8);
  timestamp.writeBigUInt64BE(BigInt(time));
  const signature = sign(null, cosignedMessage(checkpointBody, time), witness.privateKey);
  return signatureLine(witness.name, Buffer.concat([witness.keyId, timestamp, signature]));
}

function cosignatureTime(checkpointBody: string, sig: NoteSignature, key: VerifierKey): number | null {
  if (sig.signature.length !== 8 + 64) return null;
  const time = sig.signature.readBigUInt64BE(0);
  if (time > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  const ok = verify(null, cosignedMessage(checkpointBody, Number(time)), publicKeyObject(key.publicKey), sig.signature.subarray(8));
  return ok ? Number(time) : null;
}

/**
 * Verifies one cosignature line (as a witness returns it) over a checkpoint body. Returns the
 * cosignature's time in unix seconds, or null when the line is not a valid cosignature by `key`.
 */
export function verifyCosignature(checkpointBody: string, line: string, key: VerifierKey): { time: number } | null {
  if (key.type !== SIG_COSIGNATURE_V1) throw new NoteError("verifyCosignature needs a cosignature/v1 key (type 0x04)");
  let parsed: NoteSignature[];
  try {
    parsed = parseNote(`${checkpointBody}\n${line.endsWith("\n") ? line : line + "\n"}`).signatures;
  } catch {
    return null;
  }
  if (parsed.length !== 1 || parsed[0].name !== key.name || !parsed[0].keyId.equals(key.keyId)) return null;
  const time = cosignatureTime(checkpointBody, parsed[0], key);
  return time === null ? null : { time };
}
