#!/usr/bin/env node
/**
 * verify-audit-export.mjs — checks a Countersign audit export without trusting the console, its
 * database or its server. One file, Node.js (≥ 20.12) standard library only: copy it and run
 *
 *   node verify-audit-export.mjs <export.jsonl> [options]      (in the repository: npm run verify -- …)
 *
 * Options
 *   --log-key <vkey>         the log's verifier key you trust (<name>+<8 hex id>+<base64(0x01||key)>).
 *                            Overrides the key written in the export. Without it the export's own key
 *                            is used and a warning says so: whoever can rewrite the file can replace it.
 *   --witness-key <vkey>     a witness's cosignature/v1 verifier key (type 0x04); repeatable. Without
 *                            any, the export's witnessKeys are reported on, unpinned.
 *   --require-witness <n>    fail unless the export's latest checkpoint carries valid cosignatures of
 *                            at least n of the --witness-key witnesses (needs --witness-key).
 *   --checkpoint <file>      a signed checkpoint you saved earlier; repeatable. The export must agree
 *                            with it: same root at that size, and no smaller latest tree (rollback).
 *   --json                   print the result as JSON on stdout instead of the summary.
 *
 * Exit status: 0 verified; 1 a problem was found (the first line of stderr names it); 2 usage error
 * or unreadable input.
 *
 * Export format (JSON Lines, UTF-8, one JSON object per line; "\n" or "\r\n" line ends):
 *
 *   Line 1, the header:
 *     {"kind":"countersign.audit-export","version":1,"tenantId":"…","origin":"<checkpoint origin>",
 *      "exportedAt":"<ISO 8601>","logKey":"<log verifier key>","witnessKeys":["<vkey>",…],
 *      "complete":true|false,"fromSeq":"<decimal>","toSeq":"<decimal>"}
 *   Then, in any order:
 *     {"kind":"event","seq":"<decimal, 1-based>","leaf":{…}}
 *         One audit event. Its leaf in the tenant's log is at 0-based position seq − 1 and its leaf
 *         bytes are the RFC 8785 (JCS) canonical JSON of `leaf`, UTF-8; the Merkle leaf hash is
 *         SHA-256(0x00 || bytes) (RFC 6962). `leaf.seq` must be the same decimal string as `seq`.
 *         In a complete export events appear in increasing seq order (a filtered one may list them
 *         newest first, as the console does). Writing `leaf` already canonical (and the line as
 *         {"kind":"event","seq":"…","leaf":…} in that key order) lets this script take a fast path;
 *         any other valid JSON is canonicalised and gives the same result.
 *     {"kind":"event","seq":"…","leaf":{…},"inclusion":{"treeSize":"<N>","path":["<hex>",…]}}
 *         In an incomplete export (complete: false), each event carries its RFC 9162 inclusion
 *         proof (hashes as lower-case hex, leaf side first) in the tree of one of the export's
 *         checkpoints (treeSize = that checkpoint's size).
 *     {"kind":"checkpoint","note":"<C2SP signed note>"}
 *         A C2SP tlog-checkpoint (origin line = the header's origin, tree size, base64 root hash)
 *         signed by the log key, with any tlog-cosignature/v1 lines of witnesses. One or more.
 *     {"kind":"consistency","from":"<M>","to":"<N>","path":["<hex>",…]}
 *         An RFC 9162 consistency proof between two of the export's checkpoint sizes M < N.
 *         Required between consecutive checkpoints of an incomplete export; in a complete export
 *         the events themselves prove consistency, and any proof present is still checked.
 *
 *   Passkey-signed approvals: a `decision.recorded` event whose data carries `signature` holds the
 *   receipt the reviewer's authenticator signed, the WebAuthn assertion (base64url) and the
 *   credential's public key (DER SPKI, base64, with its COSE algorithm). Each is checked: the
 *   receipt's canonical JSON hashes to receiptHash and names the event's tenant, action, revision,
 *   payload hash, verdict and reviewer; clientDataJSON is a `webauthn.get` whose challenge is the
 *   receipt hash and whose origin's host is the RP id authenticatorData names; the user-present and
 *   user-verified flags are set; the signature over authenticatorData || SHA-256(clientDataJSON)
 *   verifies with the stored key. A failure names the event (problem code approval-signature).
 *
 *   A complete export (complete: true) holds every event 1..toSeq (fromSeq is "1") and every event
 *   must be covered by a checkpoint: its root is recomputed from the events at every checkpoint size.
 *   Each event's `leaf.uid` must be its own: a uid two events carry is one event sealed twice (a
 *   replayed copy), problem code replay.
 *
 * Sizes and seqs are limited to 2^53 − 1. The file is read twice, streamed (never held in memory):
 * first for the header, checkpoints and proofs, then for the events. The script also exports its
 * functions (canonicalJson, leafHash, rootOf, verifyInclusion, verifyConsistency, parseNote, …) so
 * it can be tested as an ES module; main() runs only when it is the program.
 */
import crypto from "node:crypto";
import { createReadStream, readFileSync, realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

// ---- SHA-256 and RFC 6962 hashing --------------------------------------------------------------

const HASH_SIZE = 32;
// crypto.hash (Node ≥ 20.12) avoids a Hash object per digest; fall back to createHash elsewhere.
const sha256 = typeof crypto.hash === "function" ? (bytes) => crypto.hash("sha256", bytes, "buffer") : (bytes) => crypto.createHash("sha256").update(bytes).digest();

export const EMPTY_ROOT = sha256(Buffer.alloc(0));

let leafScratch = Buffer.alloc(4096);
/** SHA-256(0x00 || bytes). */
export function leafHash(bytes) {
  if (bytes.length + 1 > leafScratch.length) leafScratch = Buffer.alloc(2 * (bytes.length + 1));
  leafScratch[0] = 0x00;
  leafScratch.set(bytes, 1);
  return sha256(leafScratch.subarray(0, bytes.length + 1));
}

const nodeScratch = Buffer.alloc(1 + 2 * HASH_SIZE);
/** SHA-256(0x01 || left || right). */
export function nodeHash(left, right) {
  nodeScratch[0] = 0x01;
  nodeScratch.set(left, 1);
  nodeScratch.set(right, 1 + HASH_SIZE);
  return sha256(nodeScratch);
}

/*
 * The full walk keeps hashes as 32-character latin1 strings: crypto.hash returns those without
 * allocating a Buffer per digest, which halves the walk's cost (garbage collection included).
 */
const sha256Latin1 = typeof crypto.hash === "function" ? (bytes) => crypto.hash("sha256", bytes, "latin1") : (bytes) => crypto.createHash("sha256").update(bytes).digest("latin1");

function leafHashLatin1(bytes) {
  if (bytes.length + 1 > leafScratch.length) leafScratch = Buffer.alloc(2 * (bytes.length + 1));
  leafScratch[0] = 0x00;
  leafScratch.set(bytes, 1);
  return sha256Latin1(leafScratch.subarray(0, bytes.length + 1));
}

const pairScratch = Buffer.alloc(1 + 2 * HASH_SIZE);
pairScratch[0] = 0x01;
function nodeHashLatin1(left, right) {
  pairScratch.write(left, 1, HASH_SIZE, "latin1");
  pairScratch.write(right, 1 + HASH_SIZE, HASH_SIZE, "latin1");
  return sha256Latin1(pairScratch);
}

/** An append-only frontier: the roots of the perfect subtrees covering the leaves so far (latin1 hashes). */
export class Frontier {
  constructor() {
    this.size = 0;
    this.stack = [];
  }
  append(hashLatin1) {
    let merged = hashLatin1;
    let n = this.size + 1;
    while (n % 2 === 0) {
      merged = nodeHashLatin1(this.stack.pop(), merged);
      n /= 2;
    }
    this.stack.push(merged);
    this.size++;
  }
  /** The RFC 6962 root of the leaves so far, as a Buffer. */
  root() {
    if (this.stack.length === 0) return Buffer.from(EMPTY_ROOT);
    let root = this.stack[this.stack.length - 1];
    for (let i = this.stack.length - 2; i >= 0; i--) root = nodeHashLatin1(this.stack[i], root);
    return Buffer.from(root, "latin1");
  }
}

/** The RFC 6962 root of a list of leaf hashes. */
export function rootOf(leafHashes) {
  const f = new Frontier();
  for (const h of leafHashes) f.append(Buffer.from(h).toString("latin1"));
  return f.root();
}

const half = (x) => Math.floor(x / 2);
const odd = (x) => x % 2 === 1;
const isHash = (h) => h instanceof Uint8Array && h.length === HASH_SIZE;
const sameHash = (a, b) => isHash(a) && isHash(b) && Buffer.compare(a, b) === 0;

/** RFC 9162 §2.1.3.2. */
export function verifyInclusion(leaf, index, size, proof, root) {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  if (!isHash(leaf) || !proof.every(isHash)) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      r = nodeHash(p, r);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && sameHash(r, root);
}

function isPowerOfTwo(x) {
  let p = 1;
  while (p < x) p *= 2;
  return p === x;
}

/** RFC 9162 §2.1.4.2, with the trivial cases (equal sizes, empty old tree) as in transparency-dev/merkle. */
export function verifyConsistency(oldSize, newSize, oldRoot, newRoot, proof) {
  if (!Number.isSafeInteger(oldSize) || !Number.isSafeInteger(newSize) || oldSize < 0 || oldSize > newSize) return false;
  if (!isHash(oldRoot) || !isHash(newRoot) || !proof.every(isHash)) return false;
  if (oldSize === newSize) return proof.length === 0 && sameHash(oldRoot, newRoot);
  if (oldSize === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(oldSize) ? [oldRoot, ...proof] : proof;
  let fn = oldSize - 1;
  let sn = newSize - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0];
  let sr = path[0];
  for (let i = 1; i < path.length; i++) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      fr = nodeHash(path[i], fr);
      sr = nodeHash(path[i], sr);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = nodeHash(sr, path[i]);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && sameHash(fr, oldRoot) && sameHash(sr, newRoot);
}

// ---- RFC 8785 canonical JSON -------------------------------------------------------------------

const LONE_SURROGATE = /\p{Cs}/u;

function canonicalString(s) {
  if (LONE_SURROGATE.test(s)) throw new Error("a string holds a lone surrogate, which RFC 8785 refuses");
  // JSON.stringify escapes exactly as RFC 8785 §3.2.2.2 asks for well-formed strings.
  return JSON.stringify(s);
}

/** RFC 8785 (JCS): keys sorted by UTF-16 code units, ES number form, minimal string escapes. */
export function canonicalJson(value) {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw new Error("a number that is not finite has no JSON form");
      return String(value); // ES Number::toString, which RFC 8785 §3.2.2.3 adopts; -0 becomes "0".
    case "string":
      return canonicalString(value);
    case "object": {
      if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
      // Array.prototype.sort without a comparator orders by UTF-16 code units.
      const keys = Object.keys(value).sort();
      return `{${keys.map((k) => `${canonicalString(k)}:${canonicalJson(value[k])}`).join(",")}}`;
    }
    default:
      throw new Error(`a ${typeof value} has no JSON form`);
  }
}

/*
 * The fast path: a scanner that accepts only text that already is RFC 8785 canonical JSON (with
 * keys in ASCII without escapes), so its bytes can be hashed as they stand. Anything else returns -1
 * and the caller canonicalises the parsed value instead, which gives the same bytes for every input
 * this accepts (the tests check both ways).
 */
const Q = 0x22; // "
const BS = 0x5c; // \
const SHORT_ESCAPES = new Set([0x22, 0x5c, 0x62, 0x66, 0x6e, 0x72, 0x74]); // " \ b f n r t
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/;
const isHexLower = (c) => (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66);
const hexValue = (c) => (c <= 0x39 ? c - 0x30 : c - 0x61 + 10);

function scanString(b, i, end, inKey) {
  // b[i] is the opening quote.
  i++;
  while (i < end) {
    const c = b[i];
    if (c === Q) return i + 1;
    if (c < 0x20) return -1;
    if (c >= 0x80) {
      // Canonical JSON keeps non-ASCII characters as they are: accept well-formed UTF-8 in values.
      // Keys stay ASCII here, where byte order and UTF-16 order agree.
      if (inKey) return -1;
      const next = utf8Sequence(b, i, end);
      if (next < 0) return -1;
      i = next;
      continue;
    }
    if (c === BS) {
      if (inKey) return -1;
      const e = b[i + 1];
      if (SHORT_ESCAPES.has(e)) {
        i += 2;
        continue;
      }
      if (e !== 0x75 || i + 5 >= end) return -1; // \u
      for (let k = 2; k < 6; k++) if (!isHexLower(b[i + k])) return -1;
      const code = (hexValue(b[i + 2]) << 12) | (hexValue(b[i + 3]) << 8) | (hexValue(b[i + 4]) << 4) | hexValue(b[i + 5]);
      // Canonical output uses \uXXXX only for control characters without a short form.
      if (code >= 0x20 || code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) return -1;
      i += 6;
      continue;
    }
    i++;
  }
  return -1;
}

const isContinuation = (x) => x >= 0x80 && x <= 0xbf;

/** The index after the well-formed UTF-8 sequence at b[i] (RFC 3629: no overlongs, no surrogates), or -1. */
function utf8Sequence(b, i, end) {
  const c = b[i];
  let length;
  let low = 0x80;
  let high = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) length = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    length = 3;
    if (c === 0xe0) low = 0xa0;
    if (c === 0xed) high = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    length = 4;
    if (c === 0xf0) low = 0x90;
    if (c === 0xf4) high = 0x8f;
  } else return -1;
  if (i + length > end || b[i + 1] < low || b[i + 1] > high) return -1;
  for (let k = 2; k < length; k++) if (!isContinuation(b[i + k])) return -1;
  return i + length;
}

function matchLiteral(b, i, end, text) {
  if (i + text.length > end) return -1;
  for (let k = 0; k < text.length; k++) if (b[i + k] !== text.charCodeAt(k)) return -1;
  return i + text.length;
}

function compareBytes(b, aStart, aEnd, bStart, bEnd) {
  const n = Math.min(aEnd - aStart, bEnd - bStart);
  for (let k = 0; k < n; k++) {
    const d = b[aStart + k] - b[bStart + k];
    if (d !== 0) return d;
  }
  return aEnd - aStart - (bEnd - bStart);
}

/** Scans one canonical value at b[i]; returns the index after it, or -1. `seqOut`, when given, receives the top-level "seq" and "uid" members' spans. */
function scanCanonical(b, i, end, depth, seqOut) {
  if (depth > 200 || i >= end) return -1;
  const c = b[i];
  if (c === 0x7b) {
    // {
    i++;
    if (b[i] === 0x7d) return i + 1;
    let prevStart = -1;
    let prevEnd = -1;
    for (;;) {
      if (b[i] !== Q) return -1;
      const keyStart = i + 1;
      const afterKey = scanString(b, i, end, true);
      if (afterKey < 0) return -1;
      const keyEnd = afterKey - 1;
      if (prevStart >= 0 && compareBytes(b, prevStart, prevEnd, keyStart, keyEnd) >= 0) return -1; // unsorted or duplicate
      prevStart = keyStart;
      prevEnd = keyEnd;
      if (b[afterKey] !== 0x3a) return -1; // :
      const valueStart = afterKey + 1;
      const valueEnd = scanCanonical(b, valueStart, end, depth + 1, null);
      if (valueEnd < 0) return -1;
      if (seqOut && keyEnd - keyStart === 3 && b[keyStart] === 0x73 && b[keyStart + 1] === 0x65 && b[keyStart + 2] === 0x71) {
        seqOut.start = valueStart;
        seqOut.end = valueEnd;
      } else if (seqOut && keyEnd - keyStart === 3 && b[keyStart] === 0x75 && b[keyStart + 1] === 0x69 && b[keyStart + 2] === 0x64) {
        seqOut.uidStart = valueStart;
        seqOut.uidEnd = valueEnd;
      }
      i = valueEnd;
      if (b[i] === 0x2c) {
        i++;
        continue;
      }
      return b[i] === 0x7d ? i + 1 : -1;
    }
  }
  if (c === 0x5b) {
    // [
    i++;
    if (b[i] === 0x5d) return i + 1;
    for (;;) {
      i = scanCanonical(b, i, end, depth + 1, null);
      if (i < 0) return -1;
      if (b[i] === 0x2c) {
        i++;
        continue;
      }
      return b[i] === 0x5d ? i + 1 : -1;
    }
  }
  if (c === Q) return scanString(b, i, end, false);
  if (c === 0x74) return matchLiteral(b, i, end, "true");
  if (c === 0x66) return matchLiteral(b, i, end, "false");
  if (c === 0x6e) return matchLiteral(b, i, end, "null");
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
    let j = i;
    let digitsOnly = true;
    while (j < end) {
      const d = b[j];
      if (d >= 0x30 && d <= 0x39) j++;
      else if (d === 0x2d || d === 0x2b || d === 0x2e || d === 0x65 || d === 0x45) {
        digitsOnly = false;
        j++;
      } else break;
    }
    // A plain integer of up to 15 digits without a leading zero is its own ES form.
    if (digitsOnly && j - i <= 15 && (c !== 0x30 || j - i === 1)) return j;
    const text = b.latin1Slice ? b.latin1Slice(i, j) : b.toString("latin1", i, j);
    if (!JSON_NUMBER.test(text)) return -1;
    const n = Number(text);
    if (!Number.isFinite(n) || String(n) !== text) return -1;
    return j;
  }
  return -1;
}

/** Whether `text` is exactly RFC 8785 canonical JSON as the fast path sees it (exported for tests). */
export function isCanonicalFastPath(text) {
  return isCanonicalFastPathBytes(Buffer.from(text, "utf8"));
}

export function isCanonicalFastPathBytes(b) {
  return scanCanonical(b, 0, b.length, 0, null) === b.length;
}

// ---- C2SP signed notes, checkpoints, cosignatures ------------------------------------------------

export const SIG_ED25519 = 0x01;
export const SIG_COSIGNATURE_V1 = 0x04;

export class NoteError extends Error {}

function strictBase64(text) {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  const bytes = Buffer.from(text, "base64");
  return bytes.toString("base64") === text ? bytes : null;
}

const isValidKeyName = (name) => name.length > 0 && !/[+\s\p{Cc}\p{Cs}]/u.test(name);

function keyIdOf(name, type, publicKey) {
  return crypto.createHash("sha256").update(name, "utf8").update("\n").update(Buffer.from([type])).update(publicKey).digest().subarray(0, 4);
}

/** Parses `<name>+<8 hex key id>+<base64(type || 32-byte Ed25519 key)>` (types 0x01 and 0x04). */
export function parseVerifierKey(text) {
  const parts = String(text).trim().split("+");
  if (parts.length < 3) throw new NoteError("malformed verifier key: expected <name>+<key id>+<key>");
  const [name, hexId] = parts;
  const key = strictBase64(parts.slice(2).join("+"));
  if (!isValidKeyName(name)) throw new NoteError(`malformed verifier key: invalid key name ${JSON.stringify(name)}`);
  if (!/^[0-9a-f]{8}$/.test(hexId)) throw new NoteError("malformed verifier key: key id must be 8 lower-case hex digits");
  if (!key || key.length !== 33) throw new NoteError("malformed verifier key: key must be base64 of a type byte and 32 bytes");
  const type = key[0];
  if (type !== SIG_ED25519 && type !== SIG_COSIGNATURE_V1) throw new NoteError(`unsupported verifier key type 0x${type.toString(16).padStart(2, "0")}`);
  const publicKey = key.subarray(1);
  const keyId = keyIdOf(name, type, publicKey);
  if (keyId.toString("hex") !== hexId) throw new NoteError(`verifier key id ${hexId} does not match its name and key`);
  const object = crypto.createPublicKey({ key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), publicKey]), format: "der", type: "spki" });
  return { name, type, keyId, publicKey, object, text: parts.join("+") };
}

/** Splits a signed note into text and signature lines (C2SP signed-note), refusing malformed notes. */
export function parseNote(text) {
  if (!text.endsWith("\n")) throw new NoteError("malformed note: it must end with a newline");
  if (/[\x00-\x09\x0b-\x1f]/.test(text)) throw new NoteError("malformed note: control character other than newline");
  if (LONE_SURROGATE.test(text)) throw new NoteError("malformed note: not well-formed Unicode");
  const split = text.lastIndexOf("\n\n");
  if (split < 0) throw new NoteError("malformed note: no blank line before the signatures");
  const body = text.slice(0, split + 1);
  const block = text.slice(split + 2);
  if (block.length === 0) throw new NoteError("malformed note: no signatures");
  const signatures = [];
  for (const line of block.slice(0, -1).split("\n")) {
    if (!line.startsWith("— ")) throw new NoteError("malformed note: a signature line does not start with an em dash and a space");
    const rest = line.slice(2);
    const space = rest.indexOf(" ");
    const name = space < 0 ? "" : rest.slice(0, space);
    const bytes = space < 0 ? null : strictBase64(rest.slice(space + 1));
    if (!isValidKeyName(name) || !bytes || bytes.length < 5) throw new NoteError("malformed note: bad signature line");
    signatures.push({ name, keyId: bytes.subarray(0, 4), signature: bytes.subarray(4) });
    if (signatures.length > 100) throw new NoteError("malformed note: more than 100 signatures");
  }
  return { body, signatures };
}

/** Parses a C2SP tlog-checkpoint body. */
export function parseCheckpoint(body) {
  if (!body.endsWith("\n")) throw new NoteError("malformed checkpoint: it must end with a newline");
  const lines = body.slice(0, -1).split("\n");
  if (lines.length < 3) throw new NoteError("malformed checkpoint: it needs an origin, a tree size and a root hash");
  const [origin, sizeText, rootText, ...extensions] = lines;
  if (origin.length === 0) throw new NoteError("malformed checkpoint: empty origin");
  if (!/^(?:0|[1-9][0-9]*)$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText))) throw new NoteError(`malformed checkpoint: tree size ${JSON.stringify(sizeText)}`);
  const rootHash = strictBase64(rootText);
  if (!rootHash || rootHash.length !== HASH_SIZE) throw new NoteError("malformed checkpoint: the root hash must be base64 of 32 bytes");
  if (extensions.some((l) => l.length === 0)) throw new NoteError("malformed checkpoint: empty extension line");
  return { origin, size: Number(sizeText), rootHash, extensions };
}

/**
 * Verifies a note against trusted keys. Returns { body, verified: [{key, time?}] }; throws when the
 * note is malformed or a signature that names a trusted key (name and key id) does not verify.
 */
export function verifyNote(text, keys) {
  const { body, signatures } = parseNote(text);
  const verified = [];
  const seen = new Set();
  for (const sig of signatures) {
    const key = keys.find((k) => k.name === sig.name && k.keyId.equals(sig.keyId));
    if (!key || seen.has(key.text)) continue;
    seen.add(key.text);
    if (key.type === SIG_COSIGNATURE_V1) {
      const time = sig.signature.length === 72 ? sig.signature.readBigUInt64BE(0) : -1n;
      const message = Buffer.from(`cosignature/v1\ntime ${time}\n${body}`, "utf8");
      if (time < 0n || time > BigInt(Number.MAX_SAFE_INTEGER) || !crypto.verify(null, message, key.object, sig.signature.subarray(8))) {
        throw new NoteError(`invalid cosignature by ${key.name}`);
      }
      verified.push({ key, time: Number(time) });
    } else {
      if (!crypto.verify(null, Buffer.from(body, "utf8"), key.object, sig.signature)) throw new NoteError(`invalid signature by ${key.name}`);
      verified.push({ key });
    }
  }
  return { body, verified };
}

// ---- reading the export --------------------------------------------------------------------------

class UsageError extends Error {}

/**
 * Streams a file's lines to a synchronous callback as Buffers (without the line end), with 1-based
 * line numbers. Lines are views into the read chunks; only a line split across two chunks is copied.
 */
async function forEachLine(path, onLine) {
  const stream = createReadStream(path, { highWaterMark: 1 << 20 });
  let rest = null;
  let lineNo = 0;
  const emit = (buf, start, nl) => {
    const end = nl > start && buf[nl - 1] === 0x0d ? nl - 1 : nl;
    lineNo++;
    onLine(buf.subarray(start, end), lineNo);
  };
  for await (const chunk of stream) {
    let start = 0;
    if (rest) {
      const nl = chunk.indexOf(0x0a);
      if (nl < 0) {
        rest = Buffer.concat([rest, chunk]);
        continue;
      }
      const joined = Buffer.concat([rest, chunk.subarray(0, nl)]);
      rest = null;
      emit(joined, 0, joined.length);
      start = nl + 1;
    }
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl < 0) break;
      emit(chunk, start, nl);
      start = nl + 1;
    }
    if (start < chunk.length) rest = Buffer.from(chunk.subarray(start));
  }
  if (rest && rest.length > 0) emit(rest, 0, rest.length);
}

const DECIMAL = /^(?:0|[1-9][0-9]*)$/;
function decimal(value, what) {
  if (typeof value !== "string" || !DECIMAL.test(value) || !Number.isSafeInteger(Number(value))) throw new Error(`${what} must be a decimal string, got ${JSON.stringify(value)}`);
  return Number(value);
}

function hexHashes(list, what) {
  if (!Array.isArray(list)) throw new Error(`${what} must be an array of hex hashes`);
  return list.map((h) => {
    if (typeof h !== "string" || !/^[0-9a-f]{64}$/.test(h)) throw new Error(`${what} holds ${JSON.stringify(String(h).slice(0, 70))}, not a 32-byte lower-case hex hash`);
    return Buffer.from(h, "hex");
  });
}

const EVENT_PREFIX = Buffer.from('{"kind":"event","seq":"');
const LEAF_INFIX = Buffer.from('","leaf":');

function hasAt(line, at, pattern) {
  if (at + pattern.length > line.length) return false;
  for (let k = 0; k < pattern.length; k++) if (line[at + k] !== pattern[k]) return false;
  return true;
}

// One result object and span, reused line after line: the walk allocates little besides digests.
const fast = { seq: 0, leafBytes: null, leafSeq: undefined, leafSeqOk: false, inclusion: undefined, uid: undefined };
const seqSpan = { start: -1, end: -1, uidStart: -1, uidEnd: -1 };

/**
 * The fast path for an event line written as {"kind":"event","seq":"N","leaf":<canonical>}:
 * returns the (reused) event or null, and then the line is parsed in full.
 */
function fastEvent(line) {
  if (!hasAt(line, 0, EVENT_PREFIX)) return null;
  let i = EVENT_PREFIX.length;
  const seqStart = i;
  let seq = 0;
  while (i < line.length && line[i] >= 0x30 && line[i] <= 0x39) seq = seq * 10 + (line[i++] - 0x30);
  if (i === seqStart || i - seqStart > 15 || (line[seqStart] === 0x30 && i - seqStart > 1)) return null;
  const seqEnd = i;
  if (!hasAt(line, i, LEAF_INFIX)) return null;
  const leafStart = i + LEAF_INFIX.length;
  if (line[leafStart] !== 0x7b) return null;
  seqSpan.start = -1;
  seqSpan.uidStart = -1;
  const leafEnd = scanCanonical(line, leafStart, line.length, 0, seqSpan);
  if (leafEnd < 0 || leafEnd !== line.length - 1 || line[leafEnd] !== 0x7d) return null;
  // leaf.seq must be the JSON string of the same digits.
  let ok = seqSpan.start >= 0 && line[seqSpan.start] === Q && seqSpan.end - seqSpan.start - 2 === seqEnd - seqStart;
  for (let k = 0; ok && k < seqEnd - seqStart; k++) ok = line[seqSpan.start + 1 + k] === line[seqStart + k];
  fast.seq = seq;
  fast.leafBytes = line.subarray(leafStart, leafEnd);
  fast.leafSeqOk = ok;
  fast.leafSeq = ok || seqSpan.start < 0 ? undefined : JSON.parse(line.toString("utf8", seqSpan.start, seqSpan.end));
  // The uid as its canonical text stands (a string's content without its quotes).
  const quoted = seqSpan.uidStart >= 0 && line[seqSpan.uidStart] === Q;
  fast.uid = seqSpan.uidStart < 0 ? undefined : line.toString("latin1", seqSpan.uidStart + (quoted ? 1 : 0), seqSpan.uidEnd - (quoted ? 1 : 0));
  return fast;
}

function slowEvent(record) {
  const seq = decimal(record.seq, "seq");
  if (record.leaf === null || typeof record.leaf !== "object" || Array.isArray(record.leaf)) throw new Error("leaf must be a JSON object");
  const uid = record.leaf.uid === undefined ? undefined : typeof record.leaf.uid === "string" ? record.leaf.uid : canonicalJson(record.leaf.uid);
  return { seq, leafBytes: Buffer.from(canonicalJson(record.leaf), "utf8"), leafSeq: record.leaf.seq, leafSeqOk: record.leaf.seq === String(seq), inclusion: record.inclusion, uid };
}

// ---- one event, one leaf -------------------------------------------------------------------------

const hexDigit = (c) => (c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1);

/** Writes a UUID's 16 bytes at out[at]; false when `text` is not a UUID. */
function writeUuid(text, out, at) {
  if (text.length !== 36) return false;
  let k = 0;
  for (let i = 0; i < 36; i++) {
    const c = text.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 0x2d) return false;
      continue;
    }
    const v = hexDigit(c);
    if (v < 0) return false;
    if (k % 2 === 0) out[at + (k >> 1)] = v << 4;
    else out[at + (k >> 1)] |= v;
    k++;
  }
  return true;
}

/**
 * The console gives every event its own uid, which the event's MAC covers; its MAC cannot cover
 * the place (id, time, seq) it does not know yet. So a uid carried by two leaves is one event
 * sealed twice: a replayed copy. 24 bytes an event (a UUID's 16, else the first 16 of its SHA-256,
 * and the seq); one native sort finds the repeats.
 */
export class UidLedger {
  constructor() {
    this.size = 0;
    this.bytes = Buffer.alloc(16 * 4096);
    this.seqs = new Float64Array(4096);
  }
  add(uid, seq) {
    if (this.size === this.seqs.length) {
      const bytes = Buffer.alloc(this.bytes.length * 2);
      this.bytes.copy(bytes);
      this.bytes = bytes;
      const seqs = new Float64Array(this.seqs.length * 2);
      seqs.set(this.seqs);
      this.seqs = seqs;
    }
    const at = this.size * 16;
    if (!writeUuid(uid, this.bytes, at)) sha256(Buffer.from(uid, "utf8")).copy(this.bytes, at, 0, 16);
    this.seqs[this.size++] = seq;
  }
  /** Each uid met more than once: { uid (hex), seqs (ascending) }. */
  repeats() {
    const high = new BigUint64Array(this.size);
    for (let i = 0; i < this.size; i++) high[i] = this.bytes.readBigUInt64BE(i * 16);
    const sorted = high.slice().sort();
    const suspects = new Set();
    for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) suspects.add(sorted[i]);
    if (suspects.size === 0) return [];
    const groups = new Map();
    for (let i = 0; i < this.size; i++) {
      if (!suspects.has(high[i])) continue;
      const key = this.bytes.toString("hex", i * 16, i * 16 + 16);
      groups.set(key, [...(groups.get(key) ?? []), this.seqs[i]]);
    }
    return [...groups]
      .filter(([, seqs]) => seqs.length > 1)
      .map(([hex, seqs]) => ({ uid: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`, seqs: seqs.sort((a, b) => a - b) }));
  }
}

// ---- passkey-signed approvals --------------------------------------------------------------------

const RECEIPT_MARK = Buffer.from('"receiptHash":"', "utf8");
const SIGNATURE_DIGESTS = new Map([[-7, "sha256"], [-257, "sha256"], [-8, null]]);

function strictBase64url(text) {
  if (typeof text !== "string" || !/^[A-Za-z0-9_-]*$/.test(text)) return null;
  const bytes = Buffer.from(text, "base64url");
  return bytes.toString("base64url") === text ? bytes : null;
}

/**
 * Why the passkey signature of a `decision.recorded` leaf does not verify, or null when it does
 * (see the header comment). Standard library only: the receipt is re-canonicalised and hashed,
 * the signature checked with crypto.verify against the stored SPKI key.
 */
export function signedApprovalProblem(leaf) {
  const sig = leaf?.data?.signature;
  if (sig === null || typeof sig !== "object") return "its signature record is missing or not an object";
  const receipt = sig.receipt;
  if (receipt === null || typeof receipt !== "object" || Array.isArray(receipt)) return "it has no receipt";
  let receiptHash;
  try {
    receiptHash = sha256(Buffer.from(canonicalJson(receipt), "utf8")).toString("hex");
  } catch (error) {
    return `its receipt cannot be canonicalised (${error.message})`;
  }
  if (receiptHash !== sig.receiptHash) return "the receipt does not hash to its receiptHash (the receipt was changed)";
  const bound = [
    ["tenant", leaf.tenantId], ["action", leaf.actionId], ["revision", leaf.data.revision], ["payloadHash", leaf.data.payloadHash],
    ["verdict", leaf.verdict], ["reviewer", leaf.reviewerId],
  ];
  for (const [field, expected] of bound) {
    if (receipt[field] !== expected) return `the receipt's ${field} ${JSON.stringify(receipt[field])} is not the event's ${JSON.stringify(expected)}`;
  }
  // A standing grant the approval also approves: the receipt signs its terms' hash.
  if ((receipt.grant ?? null) !== (leaf.data.grant?.termsHash ?? null)) {
    return `the receipt's grant ${JSON.stringify(receipt.grant ?? null)} is not the event's ${JSON.stringify(leaf.data.grant?.termsHash ?? null)}`;
  }
  const authData = strictBase64url(sig.authenticatorData);
  const clientDataBytes = strictBase64url(sig.clientDataJSON);
  const signature = strictBase64url(sig.signature);
  if (!authData || authData.length < 37 || !clientDataBytes || !signature) return "its assertion is not well-formed base64url (authenticatorData, clientDataJSON, signature)";
  let clientData;
  try {
    clientData = JSON.parse(clientDataBytes.toString("utf8"));
  } catch {
    return "its clientDataJSON is not JSON";
  }
  if (clientData?.type !== "webauthn.get") return `its clientData type is ${JSON.stringify(clientData?.type)}, not "webauthn.get"`;
  if (clientData.challenge !== Buffer.from(receiptHash, "hex").toString("base64url")) return "its clientData challenge is not the receipt's hash (the authenticator signed something else)";
  let host;
  try {
    host = new URL(clientData.origin).hostname;
  } catch {
    return `its clientData origin ${JSON.stringify(clientData.origin)} is not a URL`;
  }
  const rpIdHash = authData.subarray(0, 32);
  const labels = host.split(".");
  const rpIds = labels.map((_, i) => labels.slice(i).join(".")).filter((id) => id.length > 0);
  if (!rpIds.some((id) => sha256(Buffer.from(id, "utf8")).equals(rpIdHash))) return `its authenticatorData names an RP id that is not the origin ${clientData.origin}'s host`;
  const flags = authData[32];
  if ((flags & 0x01) === 0) return "the authenticator did not report user presence (UP flag)";
  if ((flags & 0x04) === 0) return "the authenticator did not verify the user (UV flag)";
  if (authData.readUInt32BE(33) !== sig.counter) return `its counter ${sig.counter} is not the one authenticatorData carries (${authData.readUInt32BE(33)})`;
  if (!SIGNATURE_DIGESTS.has(sig.algorithm)) return `its key algorithm ${JSON.stringify(sig.algorithm)} is not one this verifier knows (-7 ES256, -8 EdDSA, -257 RS256)`;
  let key;
  try {
    key = crypto.createPublicKey({ key: Buffer.from(String(sig.publicKey), "base64"), format: "der", type: "spki" });
  } catch {
    return "its public key is not a DER SPKI key";
  }
  const signed = Buffer.concat([authData, sha256(clientDataBytes)]);
  let ok;
  try {
    ok = crypto.verify(SIGNATURE_DIGESTS.get(sig.algorithm), signed, key, signature);
  } catch {
    ok = false;
  }
  return ok ? null : "the signature over authenticatorData || SHA-256(clientDataJSON) does not verify with the stored public key";
}

function parseLine(line, lineNo) {
  try {
    return JSON.parse(line.toString("utf8"));
  } catch {
    throw new Error(`line ${lineNo} is not valid JSON`);
  }
}

/**
 * Verifies an export. Never throws for a problem in the export: problems come back in
 * `problems` (first = the one to name). Throws UsageError for unreadable input or bad options.
 */
export async function verifyExport(path, options = {}) {
  const problems = [];
  const warnings = [];
  // At most 100 problems of one kind are listed (a file of a million bad lines stays readable).
  const perCode = new Map();
  const problem = (code, message) => {
    const count = (perCode.get(code) ?? 0) + 1;
    perCode.set(code, count);
    if (count <= 100) problems.push({ code, message });
  };

  // ---- pass 1: header, checkpoints, consistency proofs ----
  let header = null;
  const checkpointRecords = [];
  const consistencyRecords = [];
  const nonEventLines = new Set();
  let first = true;
  try {
    await forEachLine(path, (line, lineNo) => {
      if (first) {
        first = false;
        try {
          header = JSON.parse(line.toString("utf8"));
        } catch {
          throw new UsageError(`${path}: the first line is not a JSON header`);
        }
        if (header?.kind !== "countersign.audit-export") throw new UsageError(`${path}: the first line is not a countersign.audit-export header`);
        if (header.version !== 1) throw new UsageError(`${path}: export version ${JSON.stringify(header.version)} is not supported (this script reads version 1)`);
        nonEventLines.add(lineNo);
        return;
      }
      if (line.length === 0) return;
      if (hasAt(line, 0, EVENT_PREFIX)) return;
      let record;
      try {
        record = parseLine(line, lineNo);
      } catch (error) {
        problem("malformed", error.message);
        return;
      }
      if (record?.kind === "checkpoint") {
        checkpointRecords.push({ note: record.note, lineNo });
        nonEventLines.add(lineNo);
      } else if (record?.kind === "consistency") {
        consistencyRecords.push({ record, lineNo });
        nonEventLines.add(lineNo);
      } else if (record?.kind !== "event") {
        problem("malformed", `line ${lineNo} has unknown kind ${JSON.stringify(record?.kind)}`);
        nonEventLines.add(lineNo);
      }
    });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${path}: ${error.message}`);
  }
  if (!header) throw new UsageError(`${path} is empty`);
  const origin = header.origin;
  if (typeof origin !== "string" || origin.length === 0) throw new UsageError(`${path}: the header has no origin`);
  const complete = header.complete === true;
  if (header.complete !== true && header.complete !== false) throw new UsageError(`${path}: the header's "complete" must be true or false`);
  let fromSeq;
  let toSeq;
  try {
    fromSeq = decimal(header.fromSeq, "fromSeq");
    toSeq = decimal(header.toSeq, "toSeq");
  } catch (error) {
    throw new UsageError(`${path}: header ${error.message}`);
  }

  // ---- keys ----
  let logKey;
  let logKeySource;
  if (options.logKey) {
    logKey = parseUsageKey(options.logKey, "--log-key");
    logKeySource = "pinned";
    if (header.logKey && header.logKey !== logKey.text) warnings.push(`the export names a different log key (${String(header.logKey).slice(0, 80)}); the pinned --log-key was used`);
  } else {
    if (typeof header.logKey !== "string") throw new UsageError(`${path}: the header has no logKey and no --log-key was given`);
    try {
      logKey = parseVerifierKey(header.logKey);
    } catch (error) {
      throw new UsageError(`${path}: the header's logKey: ${error.message}`);
    }
    logKeySource = "export";
    warnings.push(`WARNING: the log key was taken from the export itself (${logKey.text}); anyone able to rewrite the export could have replaced it. Pin the key you trust with --log-key.`);
  }
  if (logKey.type !== SIG_ED25519) throw new UsageError("the log key must be an Ed25519 note key (type 0x01)");
  // One console key signs one log per tenant, with origin <key name>/<tenant id>.
  if (origin !== `${logKey.name}/${header.tenantId}`) warnings.push(`the export's origin ${JSON.stringify(origin)} is not ${JSON.stringify(`${logKey.name}/${header.tenantId}`)} (log key name / tenantId)`);
  // What the console found outside the tree (events it quarantined, events left unsealed): no line of
  // the file can show them, so its report is passed on as it is, not verified.
  const consoleProblems = Array.isArray(header.consoleCheck?.problems) ? header.consoleCheck.problems : [];
  if (header.consoleCheck?.ok === false && consoleProblems.length > 0) {
    const first = consoleProblems[0];
    const more = consoleProblems.length > 1 ? ` (and ${consoleProblems.length - 1} more)` : "";
    warnings.push(`the console's own check reported: ${String(first?.problem ?? "problem")}: ${String(first?.message ?? "").slice(0, 300)}${more} — not covered by this file's proofs; see the console's /audit page`);
  }
  let witnessKeys;
  let witnessKeySource;
  if (options.witnessKeys?.length) {
    witnessKeys = options.witnessKeys.map((k) => parseUsageKey(k, "--witness-key"));
    witnessKeySource = "pinned";
  } else {
    witnessKeys = [];
    for (const k of Array.isArray(header.witnessKeys) ? header.witnessKeys : []) {
      try {
        witnessKeys.push(parseVerifierKey(k));
      } catch (error) {
        warnings.push(`the export's witness key ${String(k).slice(0, 60)} is unusable: ${error.message}`);
      }
    }
    witnessKeySource = "export";
    if (witnessKeys.length) warnings.push("witness cosignatures were checked against the export's own witnessKeys (unpinned); pin them with --witness-key");
  }
  if (witnessKeys.some((k) => k.type !== SIG_COSIGNATURE_V1)) throw new UsageError("witness keys must be cosignature/v1 keys (type 0x04)");
  if (options.requireWitness && witnessKeySource !== "pinned") throw new UsageError("--require-witness needs the witnesses' keys given with --witness-key");

  // ---- checkpoints ----
  const bySize = new Map(); // size → { size, rootHash, lineNos, witnesses: Map(name → time) }
  for (const { note, lineNo } of checkpointRecords) {
    if (typeof note !== "string") {
      problem("malformed", `line ${lineNo}: a checkpoint record without a note`);
      continue;
    }
    let checkpoint;
    let verified;
    try {
      checkpoint = parseCheckpoint(parseNote(note).body);
    } catch (error) {
      problem("malformed", `line ${lineNo}: ${error.message}`);
      continue;
    }
    try {
      verified = verifyNote(note, [logKey]).verified;
    } catch (error) {
      problem("bad-signature", `checkpoint size ${checkpoint.size} (line ${lineNo}): ${error.message}; the checkpoint was altered after signing or forged`);
      continue;
    }
    if (!verified.some((v) => v.key === logKey)) {
      problem("bad-signature", `checkpoint size ${checkpoint.size} (line ${lineNo}) is not signed by the log key ${logKey.name}+${logKey.keyId.toString("hex")}`);
      continue;
    }
    if (checkpoint.origin !== origin) {
      problem("wrong-origin", `checkpoint size ${checkpoint.size} (line ${lineNo}) has origin ${JSON.stringify(checkpoint.origin)}, not the export's ${JSON.stringify(origin)}`);
      continue;
    }
    const existing = bySize.get(checkpoint.size);
    if (existing && !existing.rootHash.equals(checkpoint.rootHash)) {
      problem("fork", `fork: two checkpoints of size ${checkpoint.size} signed by the log with different roots (lines ${existing.lineNos[0]} and ${lineNo})`);
      continue;
    }
    const entry = existing ?? { size: checkpoint.size, rootHash: checkpoint.rootHash, lineNos: [], witnesses: new Map() };
    entry.lineNos.push(lineNo);
    // Each witness on its own: one bad cosignature is named, and does not hide the others.
    for (const key of witnessKeys) {
      try {
        for (const v of verifyNote(note, [key]).verified) entry.witnesses.set(v.key.name, v.time);
      } catch {
        problem("bad-cosignature", `checkpoint size ${checkpoint.size} (line ${lineNo}) carries an invalid cosignature by ${key.name}`);
      }
    }
    bySize.set(checkpoint.size, entry);
  }
  const checkpoints = [...bySize.values()].sort((a, b) => a.size - b.size);
  if (checkpoints.length === 0 && !problems.some((p) => p.code === "bad-signature")) problem("no-checkpoint", "the export holds no checkpoint signed by the log key");
  const latest = checkpoints.at(-1);

  // ---- consistency proofs ----
  const proofs = new Map(); // "from/to" → hashes
  for (const { record, lineNo } of consistencyRecords) {
    try {
      const from = decimal(record.from, "from");
      const to = decimal(record.to, "to");
      proofs.set(`${from}/${to}`, hexHashes(record.path, `line ${lineNo} path`));
    } catch (error) {
      problem("malformed", `line ${lineNo}: ${error.message}`);
    }
  }
  for (const [key, path] of proofs) {
    const [from, to] = key.split("/").map(Number);
    const a = bySize.get(from);
    const b = bySize.get(to);
    if (!a || !b) {
      warnings.push(`a consistency proof from ${from} to ${to} names a size without a signed checkpoint; ignored`);
      continue;
    }
    if (!verifyConsistency(from, to, a.rootHash, b.rootHash, path)) problem("inconsistent", `checkpoints of sizes ${from} and ${to} are not consistent: the consistency proof between them fails`);
  }
  if (!complete) {
    for (let i = 1; i < checkpoints.length; i++) {
      const from = checkpoints[i - 1].size;
      const to = checkpoints[i].size;
      if (!proofs.has(`${from}/${to}`)) problem("inconsistent", `no consistency proof between the checkpoints of sizes ${from} and ${to}`);
    }
  }

  // ---- saved checkpoints ----
  const saved = [];
  for (const file of options.checkpoints ?? []) {
    let text;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      throw new UsageError(`cannot read --checkpoint ${file}: ${error.message}`);
    }
    let checkpoint;
    let verified;
    try {
      checkpoint = parseCheckpoint(parseNote(text).body);
      verified = verifyNote(text, [logKey]).verified;
    } catch (error) {
      throw new UsageError(`--checkpoint ${file}: ${error.message}`);
    }
    if (verified.length === 0) throw new UsageError(`--checkpoint ${file} is not signed by the log key ${logKey.name}`);
    if (checkpoint.origin !== origin) throw new UsageError(`--checkpoint ${file} is for origin ${JSON.stringify(checkpoint.origin)}, not the export's ${JSON.stringify(origin)}`);
    saved.push({ file, size: checkpoint.size, rootHash: checkpoint.rootHash });
  }

  // ---- pass 2: the events ----
  const needed = new Map(); // size → computed root (complete exports)
  if (complete) {
    for (const c of checkpoints) needed.set(c.size, null);
    for (const s of saved) needed.set(s.size, null);
    if (fromSeq !== 1) problem("malformed", `a complete export starts at seq 1, the header says fromSeq ${fromSeq}`);
  }
  const frontier = new Frontier();
  if (needed.has(0)) needed.set(0, frontier.root());
  let events = 0;
  let signedApprovals = 0;
  let lastSeq = 0;
  let firstDuplicate = null;
  let firstDisorder = null;
  let firstLeafSeq = null;
  let firstBeyond = null;
  let firstInclusionProblem = null;
  const seen = new Bitset();
  const uids = new UidLedger();
  let maxSeq = 0;
  let fastCount = 0;

  await forEachLine(path, (line, lineNo) => {
    if (nonEventLines.has(lineNo) || line.length === 0) return;
    let event = fastEvent(line);
    if (event) fastCount++;
    else {
      let record;
      try {
        record = parseLine(line, lineNo);
      } catch {
        return; // reported in pass 1
      }
      if (record?.kind !== "event") {
        problem("malformed", `line ${lineNo} reads differently on a second look (duplicate "kind" keys?)`);
        return;
      }
      try {
        event = slowEvent(record);
      } catch (error) {
        problem("malformed", `line ${lineNo}: ${error.message}`);
        return;
      }
    }
    const { seq, leafBytes, leafSeq } = event;
    events++;
    if (leafBytes.indexOf(RECEIPT_MARK) >= 0) {
      let leaf = null;
      try {
        leaf = JSON.parse(leafBytes.toString("utf8"));
      } catch {
        // a leaf that does not parse is reported by the hash checks
      }
      if (leaf?.type === "decision.recorded" && leaf.data?.signature !== undefined) {
        signedApprovals++;
        const why = signedApprovalProblem(leaf);
        if (why) problem("approval-signature", `the passkey-signed approval in event seq ${seq} (event ${leaf.eventId}, action ${leaf.actionId}, line ${lineNo}) does not verify: ${why}`);
      }
    }
    if (seq === 0 || !Number.isSafeInteger(seq)) {
      problem("malformed", `line ${lineNo}: seq ${seq} is not a positive safe integer`);
      return;
    }
    if (!event.leafSeqOk && !firstLeafSeq) firstLeafSeq = { seq, leafSeq, lineNo };
    if (seen.has(seq)) {
      if (!firstDuplicate) firstDuplicate = { seq, lineNo };
    } else {
      if (complete && seq < lastSeq && !firstDisorder) firstDisorder = { seq, after: lastSeq, lineNo };
      if (typeof event.uid === "string") uids.add(event.uid, seq);
    }
    seen.add(seq);
    if ((seq > toSeq || seq < fromSeq) && !firstBeyond) firstBeyond = { seq, lineNo };
    lastSeq = seq;
    if (seq > maxSeq) maxSeq = seq;
    const hash = leafHashLatin1(leafBytes);
    if (complete) {
      frontier.append(hash);
      if (needed.has(frontier.size)) needed.set(frontier.size, frontier.root());
    } else if (!firstInclusionProblem) {
      const inclusion = event.inclusion;
      if (!inclusion || typeof inclusion !== "object") firstInclusionProblem = `event seq ${seq} (line ${lineNo}) has no inclusion proof, and the export is not complete`;
      else {
        let treeSize;
        let proofPath;
        try {
          treeSize = decimal(inclusion.treeSize, "inclusion.treeSize");
          proofPath = hexHashes(inclusion.path, "inclusion.path");
        } catch (error) {
          firstInclusionProblem = `event seq ${seq} (line ${lineNo}): ${error.message}`;
        }
        if (proofPath) {
          const checkpoint = bySize.get(treeSize);
          if (!checkpoint) firstInclusionProblem = `event seq ${seq} (line ${lineNo}): its inclusion proof is for tree size ${treeSize}, and the export has no signed checkpoint of that size`;
          else if (!verifyInclusion(Buffer.from(hash, "latin1"), seq - 1, treeSize, proofPath, checkpoint.rootHash))
            firstInclusionProblem = `event seq ${seq} (line ${lineNo}): its inclusion proof in the checkpoint of size ${treeSize} fails: the event was changed or is not in the log`;
        }
      }
    }
  });

  // ---- judging the sequence ----
  if (firstDuplicate) problem("duplicate", `duplicate: seq ${firstDuplicate.seq} appears more than once (again at line ${firstDuplicate.lineNo})`);
  if (firstDisorder) problem("out-of-order", `out of order: seq ${firstDisorder.seq} (line ${firstDisorder.lineNo}) comes after seq ${firstDisorder.after}`);
  for (const { uid, seqs } of uids.repeats()) {
    problem("replay", `replay: events seq ${seqs.join(", ")} carry the same uid ${uid}: one event was sealed more than once (a copy)`);
  }
  if (firstLeafSeq) problem("leaf-seq", `event seq ${firstLeafSeq.seq} (line ${firstLeafSeq.lineNo}) carries leaf.seq ${JSON.stringify(firstLeafSeq.leafSeq)}`);
  if (firstBeyond) problem("out-of-range", `event seq ${firstBeyond.seq} (line ${firstBeyond.lineNo}) is outside the header's range ${fromSeq}..${toSeq}`);
  if (complete) {
    const missing = seen.firstMissing(1, Math.max(maxSeq, toSeq));
    if (missing !== null) {
      if (missing > maxSeq) problem("truncated", `truncated: seqs ${missing}..${toSeq} are missing (the header says the export runs to seq ${toSeq})`);
      else problem("gap", `gap: seq ${missing} is missing`);
    }
  }
  if (firstInclusionProblem) problem("inclusion", firstInclusionProblem);

  // ---- checkpoints against the events (complete exports) ----
  let covered = 0;
  if (complete) {
    let lastMatch = 0;
    for (const c of checkpoints) {
      if (c.size > frontier.size) {
        problem("truncated", `checkpoint size ${c.size} covers seqs ${frontier.size + 1}..${c.size}, which are missing from the export (events were removed from its end)`);
        continue;
      }
      const root = needed.get(c.size);
      if (root && root.equals(c.rootHash)) {
        lastMatch = c.size;
        covered = Math.max(covered, c.size);
      } else {
        problem("mismatch", `checkpoint size ${c.size} does not match: some event in seqs ${lastMatch + 1}..${c.size} was changed, inserted or removed`);
      }
    }
    if (frontier.size > covered && checkpoints.length > 0 && !problems.some((p) => p.code === "mismatch" || p.code === "truncated")) {
      problem("not-covered", `events seq ${covered + 1}..${frontier.size} are not covered by a signed checkpoint`);
    }
  }

  // ---- saved checkpoints against the export ----
  for (const s of saved) {
    if (latest && s.size > latest.size) {
      problem("rollback", `rollback: the export's latest checkpoint has size ${latest.size}, smaller than the saved checkpoint (${s.file}) of size ${s.size}: events ${latest.size + 1}..${s.size} were removed`);
      continue;
    }
    const same = bySize.get(s.size);
    if (same) {
      if (!same.rootHash.equals(s.rootHash)) problem("fork", `fork: the saved checkpoint (${s.file}) of size ${s.size} has a different root than the export's checkpoint of that size`);
      continue;
    }
    if (complete && needed.get(s.size)) {
      if (!needed.get(s.size).equals(s.rootHash)) problem("fork", `fork: the export's events give a different root at size ${s.size} than the saved checkpoint (${s.file})`);
      continue;
    }
    const proofTo = [...proofs.keys()].map((k) => k.split("/").map(Number)).find(([from, to]) => from === s.size && bySize.has(to));
    if (proofTo) {
      const [, to] = proofTo;
      if (!verifyConsistency(s.size, to, s.rootHash, bySize.get(to).rootHash, proofs.get(`${s.size}/${to}`)))
        problem("fork", `fork: the saved checkpoint (${s.file}) of size ${s.size} is not consistent with the export's checkpoint of size ${to}`);
      continue;
    }
    problem("unchecked", `the saved checkpoint (${s.file}) of size ${s.size} cannot be checked: the export has no checkpoint of that size, no consistency proof from it, and does not hold every event`);
  }

  // ---- witnesses ----
  if (options.requireWitness && latest) {
    const count = latest.witnesses.size;
    if (count < options.requireWitness)
      problem("witnesses", `the latest checkpoint (size ${latest.size}) carries ${count} valid witness cosignature${count === 1 ? "" : "s"}, fewer than the ${options.requireWitness} required`);
  }

  // The most telling problem first: what was done to the events before what it broke downstream.
  problems.sort((a, b) => PRIORITY.indexOf(a.code) - PRIORITY.indexOf(b.code));
  return {
    ok: problems.length === 0,
    problems,
    warnings,
    origin,
    tenantId: header.tenantId,
    complete,
    events,
    // decision.recorded events carrying a passkey signature, each checked offline.
    signedApprovals,
    // Events not written as canonical text (or not ASCII), canonicalised here: same result, slower.
    canonicalisedEvents: events - fastCount,
    logKey: { name: logKey.name, keyId: logKey.keyId.toString("hex"), source: logKeySource },
    witnessKeys: { source: witnessKeySource, names: witnessKeys.map((k) => k.name) },
    checkpoints: checkpoints.map((c) => ({
      size: c.size,
      rootHash: c.rootHash.toString("base64"),
      witnesses: [...c.witnesses].map(([name, time]) => ({ name, cosignedAt: new Date(time * 1000).toISOString() })),
    })),
    saved: saved.map((s) => ({ file: s.file, size: s.size })),
  };
}

const PRIORITY = [
  "malformed",
  "bad-signature",
  "bad-cosignature",
  "wrong-origin",
  "fork",
  "rollback",
  "duplicate",
  "out-of-order",
  "leaf-seq",
  "replay",
  "gap",
  "truncated",
  "inclusion",
  "mismatch",
  "inconsistent",
  "unchecked",
  "not-covered",
  "out-of-range",
  "approval-signature",
  "no-checkpoint",
  "witnesses",
];

function parseUsageKey(text, flag) {
  try {
    return parseVerifierKey(text);
  } catch (error) {
    throw new UsageError(`${flag} ${JSON.stringify(String(text).slice(0, 80))}: ${error.message}`);
  }
}

/** A growable set of positive integers. */
class Bitset {
  constructor() {
    this.bits = new Uint8Array(1 << 16);
  }
  has(n) {
    const i = Math.floor(n / 8);
    return i < this.bits.length && (this.bits[i] & (1 << n % 8)) !== 0;
  }
  add(n) {
    const i = Math.floor(n / 8);
    if (i >= this.bits.length) {
      const grown = new Uint8Array(Math.max(this.bits.length * 2, i + 1));
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[i] |= 1 << n % 8;
  }
  firstMissing(from, to) {
    for (let n = from; n <= to; n++) if (!this.has(n)) return n;
    return null;
  }
}

// ---- command line --------------------------------------------------------------------------------

const USAGE = "usage: node verify-audit-export.mjs <export.jsonl> [--log-key <vkey>] [--witness-key <vkey>]... [--require-witness <n>] [--checkpoint <file>]... [--json]";

export function parseArguments(argv) {
  const options = { witnessKeys: [], checkpoints: [], json: false, requireWitness: 0, file: null, logKey: null };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new UsageError(`${arg} needs a value\n${USAGE}`);
      return argv[++i];
    };
    if (arg === "--log-key") options.logKey = value();
    else if (arg === "--witness-key") options.witnessKeys.push(value());
    else if (arg === "--checkpoint") options.checkpoints.push(value());
    else if (arg === "--require-witness") {
      const n = value();
      if (!/^[1-9][0-9]{0,3}$/.test(n)) throw new UsageError(`--require-witness takes a positive number, got ${JSON.stringify(n)}`);
      options.requireWitness = Number(n);
    } else if (arg === "--json") options.json = true;
    else if (arg === "--help" || arg === "-h") throw new UsageError(USAGE);
    else if (arg.startsWith("--")) throw new UsageError(`unknown option ${arg}\n${USAGE}`);
    else if (options.file === null) options.file = arg;
    else throw new UsageError(`one export file at a time\n${USAGE}`);
  }
  if (!options.file) throw new UsageError(USAGE);
  return options;
}

function summary(result) {
  const lines = [];
  lines.push(`${result.ok ? "VERIFIED" : "PROBLEM FOUND"}: ${result.events} event${result.events === 1 ? "" : "s"} of ${result.origin} (${result.complete ? "complete export" : "filtered export, each event checked by its inclusion proof"})`);
  if (result.signedApprovals > 0) lines.push(`passkey-signed approvals checked: ${result.signedApprovals}`);
  lines.push(`log key: ${result.logKey.name}+${result.logKey.keyId} (${result.logKey.source === "pinned" ? "pinned with --log-key" : "taken from the export, NOT pinned"})`);
  for (const c of result.checkpoints) {
    const witnesses = c.witnesses.length ? c.witnesses.map((w) => `${w.name} at ${w.cosignedAt}`).join(", ") : "no witness cosignature";
    lines.push(`  checkpoint size ${c.size}: signed by the log; ${witnesses}`);
  }
  for (const s of result.saved) lines.push(`  saved checkpoint ${s.file} (size ${s.size}) checked`);
  return lines.join("\n");
}

export async function main(argv = process.argv.slice(2)) {
  let options;
  let result;
  try {
    options = parseArguments(argv);
    result = await verifyExport(options.file, options);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (!result.ok) {
    process.stderr.write(`${result.problems[0].message}\n`);
    for (const p of result.problems.slice(1)) process.stderr.write(`also: ${p.message}\n`);
  }
  for (const w of result.warnings) process.stderr.write(`${w}\n`);
  process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : `${summary(result)}\n`);
  return result.ok ? 0 : 1;
}

const invokedDirectly = (() => {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
})();
if (invokedDirectly) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`internal error: ${error?.stack ?? error}\n`);
      process.exitCode = 2;
    },
  );
}
