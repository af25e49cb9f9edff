import { createHmac, hkdfSync, randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readEnv } from "@/lib/env";
import { noteSigner, parseVerifierKey, verifierKey, verifyNote, type NoteSigner, type VerifierKey } from "@/lib/audit/transparency/signed-note";
import type { Queryable } from "@/lib/db/sql";
import { readAuditCheckpointNotes } from "@/lib/db/statements/audit/read-audit-checkpoint-notes";

/**
 * The audit log's keys, from one 32-byte seed outside the database (`AUDIT_SIGNING_KEY`, else a
 * file made once, mode 0600): an Ed25519 key that signs checkpoints (public on /audit and
 * /.well-known/countersign-audit-keys) and a derived HMAC key for events' and seals' MACs. Without
 * the seed, a database writer can neither forge an event nor re-seal a changed one.
 */
export type AuditKeys = {
  /** The key name in signed notes; a tenant's log (origin) is `<name>/<tenantId>`. */
  name: string;
  signer: NoteSigner;
  /** C2SP verifier key string: `<name>+<key id>+<base64 public key>`, and parsed. */
  verifierKey: string;
  verifier: VerifierKey;
  macKey: Buffer;
};

const DEFAULT_NAME = "countersign-audit";
const MAC_LABEL = "countersign/audit-mac/v1";

let cached: { source: string; keys: AuditKeys; seed: Buffer } | null = null;

/** The keys for this process (read once; a changed environment is picked up, for tests). */
export function auditKeys(): AuditKeys {
  return loaded().keys;
}

function loaded(): { keys: AuditKeys; seed: Buffer } {
  const envSeed = readEnv("AUDIT_SIGNING_KEY");
  const file = readEnv("AUDIT_SIGNING_KEY_FILE") ?? path.join(process.cwd(), ".data", "audit-signing-key");
  const name = readEnv("AUDIT_LOG_NAME") ?? DEFAULT_NAME;
  const source = `${envSeed ?? ""}|${file}|${name}`;
  if (cached?.source === source) return cached;
  const seed = envSeed ? decodeSeed(envSeed, "AUDIT_SIGNING_KEY") : seedFromFile(file);
  const signer = noteSigner(name, seed);
  const text = verifierKey(name, signer.publicKey);
  const keys: AuditKeys = { name, signer, verifierKey: text, verifier: parseVerifierKey(text), macKey: macKeyOf(seed) };
  cached = { source, keys, seed };
  return cached;
}

/**
 * A 32-byte key for another console secret (e.g. sealing MCP servers' secrets), HKDF-SHA256 from
 * the same seed under its own `label`: out of a database writer's reach, unrelated to the others.
 */
export function derivedConsoleKey(label: string): Buffer {
  return Buffer.from(hkdfSync("sha256", loaded().seed, Buffer.alloc(0), label, 32));
}

/** A tenant's log, as named in its checkpoints. */
export function auditOrigin(tenantId: string, keys: AuditKeys = auditKeys()): string {
  return `${keys.name}/${tenantId}`;
}

function macKeyOf(seed: Buffer): Buffer {
  return createHmac("sha256", seed).update(MAC_LABEL).digest();
}

function decodeSeed(text: string, where: string): Buffer {
  const seed = Buffer.from(text.trim(), text.includes("-") || text.includes("_") ? "base64url" : "base64");
  if (seed.length !== 32) throw new Error(`${where} must hold 32 bytes in base64 (e.g. \`openssl rand -base64 32\`); it holds ${seed.length}.`);
  return seed;
}

/** Reads the seed file, creating it (exclusively, 0600) on first use; two processes starting at once agree. */
function seedFromFile(file: string): Buffer {
  try {
    return decodeSeed(readFileSync(file, "utf8"), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  // Written in full to a private temporary file, then linked into place: a reader never sees a
  // half-written seed, and of two processes creating it the second links nothing and reads the first's.
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  writeFileSync(temporary, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    unlinkSync(temporary);
  }
  return decodeSeed(readFileSync(file, "utf8"), file);
}

/** How many checkpoint notes the start-up check reads, newest first, looking for one of ours. */
const KEY_CHECK_NOTES = 2_000;

/**
 * Why this process must not write to the audit log, or null: its key signed none of the log's
 * newest checkpoints (a worker elsewhere with its own key file), so its events would fail their
 * MAC. Any one of ours will do: a row inserted under another key must not stop the console.
 */
export async function auditKeyProblem(db: Queryable): Promise<string | null> {
  const keys = auditKeys();
  let seen = 0;
  let beforeId: bigint | null = null;
  while (seen < KEY_CHECK_NOTES) {
    const rows = await readAuditCheckpointNotes(db, { beforeId, limit: 200 });
    if (rows.length === 0) break;
    for (const row of rows) if (signedBy(row.note, keys)) return null;
    seen += rows.length;
    beforeId = rows[rows.length - 1].id;
  }
  if (seen === 0) return null;
  return `This process's audit signing key (${keys.verifierKey}) is not the one that signed this database's audit log: set AUDIT_SIGNING_KEY to the console's key (its file is .data/audit-signing-key where npm start runs), or its events would be quarantined.`;
}

function signedBy(note: string, keys: AuditKeys): boolean {
  try {
    return verifyNote(note, [keys.verifier]).verified.length > 0;
  } catch {
    // malformed, or a signature under our key's name and id that does not verify
    return false;
  }
}
