import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  SIG_COSIGNATURE_V1,
  SIG_ED25519,
  cosign,
  formatCheckpoint,
  keyPairFromSeed,
  noteSigner,
  parseCheckpoint,
  parseNote,
  parseSignerKey,
  parseVerifierKey,
  signNote,
  signerKey,
  verifierKey,
  verifyCosignature,
  verifyNote,
} from "./signed-note";

/*
 * The example key and note of golang.org/x/mod/sumdb/note (its package documentation and
 * note_test.go): a fixed signer key, its verifier key and the exact signed note Go produces.
 */
const GO_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
const GO_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
const GO_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const GO_NOTE = `${GO_TEXT}\n— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

const logSeed = randomBytes(32);
const log = noteSigner("countersign.example/log", logSeed);
const logKey = parseVerifierKey(verifierKey(log.name, log.publicKey));
const witness = noteSigner("witness.example/w1", randomBytes(32), SIG_COSIGNATURE_V1);
const witnessKey = parseVerifierKey(verifierKey(witness.name, witness.publicKey, SIG_COSIGNATURE_V1));
const body = formatCheckpoint({ origin: "countersign.example/log/tenant-1", size: 12, rootHash: randomBytes(32) });

describe("keys", () => {
  it("match the Go reference example byte for byte", () => {
    const signer = parseSignerKey(GO_SKEY);
    expect(verifierKey(signer.name, signer.publicKey)).toBe(GO_VKEY);
    expect(signerKey(signer.name, keyPairFromSeed(Buffer.from(GO_SKEY.split("+").slice(4).join("+"), "base64").subarray(1)).seed)).toBe(GO_SKEY);
    expect(signNote(GO_TEXT, signer)).toBe(GO_NOTE);
    const v = parseVerifierKey(GO_VKEY);
    expect(v).toMatchObject({ name: "PeterNeumann", type: SIG_ED25519 });
    expect(v.keyId.toString("hex")).toBe("c74f20a3");
    expect(verifyNote(GO_NOTE, [v]).verified.map((x) => x.key.name)).toEqual(["PeterNeumann"]);
  });

  it("refuse malformed or mismatched verifier keys with a reason", () => {
    expect(() => parseVerifierKey("PeterNeumann+c74f20a3")).toThrow(/malformed verifier key/);
    expect(() => parseVerifierKey("PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW")).toThrow(/does not match/);
    expect(() => parseVerifierKey("Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW")).toThrow(/invalid key name/);
    expect(() => parseVerifierKey("PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10")).toThrow(/base64/);
    // Unknown algorithm byte (with an adjusted key id, from the Go tests).
    expect(() => parseVerifierKey("PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW")).toThrow(/unsupported verifier key type/);
    expect(() => parseSignerKey(GO_SKEY.replace("c74f20a3", "c74f20a4"))).toThrow(/does not match/);
    expect(() => keyPairFromSeed(Buffer.alloc(31))).toThrow(/32 bytes/);
  });

  it("give cosignature keys their own key id (type 0x04)", () => {
    expect(witnessKey.type).toBe(SIG_COSIGNATURE_V1);
    expect(verifierKey(witness.name, witness.publicKey, SIG_COSIGNATURE_V1)).not.toBe(verifierKey(witness.name, witness.publicKey));
  });
});

describe("checkpoints", () => {
  it("round-trip through the C2SP text form", () => {
    const root = randomBytes(32);
    const text = formatCheckpoint({ origin: "example.com/log", size: 20852163, rootHash: root, extensions: ["ext one"] });
    expect(text).toBe(`example.com/log\n20852163\n${root.toString("base64")}\next one\n`);
    expect(parseCheckpoint(text)).toEqual({ origin: "example.com/log", size: 20852163, rootHash: root, extensions: ["ext one"] });
  });

  it("refuse malformed bodies with a reason", () => {
    const root = randomBytes(32).toString("base64");
    expect(() => parseCheckpoint(`o\n1\n${root}`)).toThrow(/end with a newline/);
    expect(() => parseCheckpoint(`o\n1\n`)).toThrow(/needs an origin/);
    expect(() => parseCheckpoint(`\n1\n${root}\n`)).toThrow(/empty origin/);
    expect(() => parseCheckpoint(`o\n01\n${root}\n`)).toThrow(/not a decimal/);
    expect(() => parseCheckpoint(`o\n-1\n${root}\n`)).toThrow(/not a decimal/);
    expect(() => parseCheckpoint(`o\n9007199254740993\n${root}\n`)).toThrow(/larger than 2\^53/);
    expect(() => parseCheckpoint(`o\n1\n${randomBytes(31).toString("base64")}\n`)).toThrow(/32 bytes/);
    expect(() => parseCheckpoint(`o\n1\n${root}\n\n`)).toThrow(/empty extension/);
  });
});

describe("signed notes", () => {
  it("verify under the signing key and not under another", () => {
    const note = signNote(body, log);
    expect(verifyNote(note, [logKey]).verified.map((v) => v.key.text)).toEqual([logKey.text]);
    const other = noteSigner(log.name, randomBytes(32));
    const otherKey = parseVerifierKey(verifierKey(other.name, other.publicKey));
    const result = verifyNote(note, [otherKey]);
    expect(result.verified).toEqual([]);
    expect(result.unknown.map((s) => s.name)).toEqual([log.name]);
  });

  it("fail when the body is tampered with", () => {
    const note = signNote(body, log);
    const tampered = note.replace("\n12\n", "\n13\n");
    expect(() => verifyNote(tampered, [logKey])).toThrow(/invalid signature by countersign.example\/log/);
  });

  it("do not verify under a different key name for the same key", () => {
    const renamed = parseVerifierKey(verifierKey("someone.else/log", log.publicKey));
    expect(verifyNote(signNote(body, log), [renamed]).verified).toEqual([]);
  });

  it("refuse malformed notes with a reason", () => {
    const note = signNote(body, log);
    expect(() => parseNote(note.replace("\n\n", "\r\n\n"))).toThrow(/control character/);
    expect(() => parseNote(note.slice(0, -1))).toThrow(/end with a newline/);
    expect(() => parseNote(body)).toThrow(/no blank line/);
    expect(() => parseNote(`${body}\n`)).toThrow(/no signatures/);
    expect(() => parseNote(note.replace("— ", "- "))).toThrow(/does not start with/);
    expect(() => parseNote(note.replace(/ [A-Za-z0-9+/=]+\n$/, " !!!!\n"))).toThrow(/not base64/);
    expect(() => parseNote(`${body}\n— name AAAA\n`)).toThrow(/not base64 of a key id and a signature/);
    expect(() => parseNote(`${body}\n${"— a AAAAAAAA\n".repeat(101)}`)).toThrow(/more than 100/);
    expect(() => signNote("no newline", log)).toThrow(/end with a newline/);
  });
});

describe("cosignatures", () => {
  it("verify for the witness key and carry the time", () => {
    const line = cosign(body, witness, 1_700_000_000);
    expect(line).toMatch(/^— witness\.example\/w1 [A-Za-z0-9+/]+=*\n$/);
    expect(Buffer.from(line.trim().split(" ")[2], "base64")).toHaveLength(4 + 8 + 64);
    expect(verifyCosignature(body, line, witnessKey)).toEqual({ time: 1_700_000_000 });
    const note = signNote(body, log) + line;
    const result = verifyNote(note, [logKey, witnessKey]);
    expect(result.verified.map((v) => [v.key.name, v.time])).toEqual([
      [log.name, undefined],
      [witness.name, 1_700_000_000],
    ]);
  });

  it("fail on another body, another key or a changed time", () => {
    const line = cosign(body, witness, 1_700_000_000);
    const otherBody = formatCheckpoint({ origin: "countersign.example/log/tenant-1", size: 13, rootHash: randomBytes(32) });
    expect(verifyCosignature(otherBody, line, witnessKey)).toBeNull();
    const stranger = noteSigner(witness.name, randomBytes(32), SIG_COSIGNATURE_V1);
    expect(verifyCosignature(body, line, parseVerifierKey(verifierKey(stranger.name, stranger.publicKey, SIG_COSIGNATURE_V1)))).toBeNull();
    const bytes = Buffer.from(line.trim().split(" ")[2], "base64");
    bytes[11] ^= 1;
    expect(verifyCosignature(body, `— ${witness.name} ${bytes.toString("base64")}\n`, witnessKey)).toBeNull();
    // A cosignature is not a note signature: the same key as type 0x01 does not accept it.
    expect(verifyNote(signNote(body, log) + line, [parseVerifierKey(verifierKey(witness.name, witness.publicKey))]).verified).toEqual([]);
  });
});
