import { createHash, randomBytes } from "node:crypto";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical/canonical-json";
import type { JsonValue } from "@/lib/canonical/json-value";
import { MemoryLog } from "./memory-log";
import { EMPTY_ROOT, leafHash, rootOf, toHex, verifyConsistency, verifyInclusion } from "./merkle";
import { requestCosignature } from "./witness-client";
import { startWitnessServer } from "./witness-server";
import { SIG_COSIGNATURE_V1, cosign, formatCheckpoint, noteSigner, parseVerifierKey, signNote, verifierKey, type NoteSigner } from "./signed-note";

const SCRIPT = path.join(process.cwd(), "scripts", "verify-audit-export.mjs");
const dir = mkdtempSync(path.join(os.tmpdir(), "verify-export-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LOG_NAME = "countersign.test";
const logSigner = noteSigner(LOG_NAME, randomBytes(32));
const LOG_KEY = verifierKey(logSigner.name, logSigner.publicKey);
const witnessSigner = noteSigner("witness.test/w1", randomBytes(32), SIG_COSIGNATURE_V1);
const WITNESS_KEY = verifierKey(witnessSigner.name, witnessSigner.publicKey, SIG_COSIGNATURE_V1);
const TENANT = "tenant-7f3a";
const ORIGIN = `${LOG_NAME}/${TENANT}`;

type Leaf = { [key: string]: JsonValue };
type ExportEvent = { seq: number; leaf: Leaf; inclusion?: { treeSize: string; path: string[] } };
type Built = { header: Record<string, JsonValue>; events: ExportEvent[]; notes: Map<number, string>; proofs: { from: number; to: number; path: string[] }[]; log: MemoryLog };

const ACTIONS = ["approval.requested", "approval.decided", "action.executed", "member.invited", "policy.saved"];

function fakeLeaf(seq: number): Leaf {
  return {
    seq: String(seq),
    type: ACTIONS[seq % ACTIONS.length],
    actorId: `user_${seq % 13}`,
    at: new Date(Date.UTC(2026, 0, 1) + seq * 61_000).toISOString(),
    data: { approvalId: randomBytes(8).toString("hex"), amountMinor: seq * 137, note: seq % 5 === 0 ? "Zahlung für Müller — ok ✓" : `refund ${seq}`, ratio: seq / 8, tags: ["a", `t${seq % 3}`] },
  };
}

/** Builds a tenant's log of n events with signed, witnessed checkpoints at the given sizes. */
async function buildExport(n: number, checkpointSizes: number[], signer: NoteSigner = logSigner, makeLeaf = fakeLeaf): Promise<Built> {
  const log = new MemoryLog();
  const events: ExportEvent[] = [];
  for (let seq = 1; seq <= n; seq++) {
    const leaf = makeLeaf(seq);
    log.append(Buffer.from(canonicalJson(leaf), "utf8"));
    events.push({ seq, leaf });
  }
  const notes = new Map<number, string>();
  for (const size of checkpointSizes) notes.set(size, await checkpointNote(log, size, signer));
  const proofs = [];
  for (let i = 1; i < checkpointSizes.length; i++) {
    const [from, to] = [checkpointSizes[i - 1], checkpointSizes[i]];
    proofs.push({ from, to, path: (await log.consistencyProof(from, to)).map(toHex) });
  }
  const header = {
    kind: "countersign.audit-export",
    version: 1,
    tenantId: TENANT,
    origin: ORIGIN,
    exportedAt: new Date().toISOString(),
    logKey: LOG_KEY,
    witnessKeys: [WITNESS_KEY],
    complete: true,
    fromSeq: "1",
    toSeq: String(n),
  };
  return { header, events, notes, proofs, log };
}

async function checkpointNote(log: MemoryLog, size: number, signer: NoteSigner = logSigner, origin = ORIGIN): Promise<string> {
  const body = formatCheckpoint({ origin, size, rootHash: await log.root(size) });
  return signNote(body, signer) + cosign(body, witnessSigner, 1_767_225_600 + size);
}

/** The export's lines: events written the canonical (fast) way, except every seventh written another way. */
function lines(built: Built): string[] {
  const out = [JSON.stringify(built.header)];
  for (const e of built.events) {
    if (e.inclusion) out.push(JSON.stringify({ kind: "event", seq: String(e.seq), leaf: e.leaf, inclusion: e.inclusion }));
    else if (e.seq % 7 === 0) out.push(JSON.stringify({ leaf: e.leaf, seq: String(e.seq), kind: "event" }, null, 0));
    else out.push(`{"kind":"event","seq":"${e.seq}","leaf":${canonicalJson(e.leaf)}}`);
  }
  // Checkpoints and proofs anywhere in the file: here, interleaved from the end backwards.
  for (const [size, note] of [...built.notes].reverse()) out.splice(Math.min(out.length, 1 + size), 0, JSON.stringify({ kind: "checkpoint", note }));
  for (const p of built.proofs) out.push(JSON.stringify({ kind: "consistency", from: String(p.from), to: String(p.to), path: p.path }));
  return out;
}

let fileCount = 0;
function writeLines(content: string[]): string {
  const file = path.join(dir, `export-${++fileCount}.jsonl`);
  writeFileSync(file, content.join("\n") + "\n");
  return file;
}

function writeNote(note: string): string {
  const file = path.join(dir, `checkpoint-${++fileCount}.txt`);
  writeFileSync(file, note);
  return file;
}

function verify(file: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [SCRIPT, file, ...args], { encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, first: result.stderr.split("\n")[0] };
}

const pinned = ["--log-key", LOG_KEY, "--witness-key", WITNESS_KEY];
const SIZES = [8, 16, 24, 32, 40];

describe("the offline verifier on a complete export", () => {
  let good: Built;
  beforeAll(async () => {
    good = await buildExport(40, SIZES);
  });

  it("verifies a good export, reporting each checkpoint's witness", () => {
    const r = verify(writeLines(lines(good)), ...pinned, "--require-witness", "1");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^VERIFIED: 40 events of countersign\.test\/tenant-7f3a \(complete export\)/);
    expect(r.stdout).toMatch(/checkpoint size 40: signed by the log; witness\.test\/w1 at /);
    const json = JSON.parse(verify(writeLines(lines(good)), ...pinned, "--json").stdout);
    expect(json).toMatchObject({ ok: true, events: 40, problems: [], logKey: { source: "pinned" } });
    expect(json.checkpoints.map((c: { size: number; witnesses: unknown[] }) => [c.size, c.witnesses.length])).toEqual(SIZES.map((s) => [s, 1]));
  });

  it("warns loudly when only the key inside the export was used", () => {
    const r = verify(writeLines(lines(good)));
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^WARNING: the log key was taken from the export itself/);
    expect(r.stdout).toMatch(/taken from the export, NOT pinned/);
  });

  it("names the checkpoint an edited event breaks", () => {
    const edited = lines(good).map((l) => (l.includes('"seq":"11"') && l.includes('"kind":"event"') ? l.replace('"refund 11"', '"refund 12"') : l));
    const r = verify(writeLines(edited), ...pinned);
    expect(r.code).toBe(1);
    expect(r.first).toBe("checkpoint size 16 does not match: some event in seqs 9..16 was changed, inserted or removed");
  });

  it("names an edit whose proofs were recomputed but whose checkpoints could not be re-signed", async () => {
    const forged = await buildExport(40, SIZES, logSigner, (seq) => (seq === 11 ? { ...good.events[10].leaf, type: "nothing.happened" } : good.events[seq - 1].leaf));
    // Proofs from the forged tree, the genuine signed checkpoints: the roots disagree with the events.
    const withGenuine = lines({ ...forged, notes: good.notes });
    expect(verify(writeLines(withGenuine), ...pinned).first).toBe("checkpoint size 16 does not match: some event in seqs 9..16 was changed, inserted or removed");
    // Roots rewritten in the checkpoints too, signature lines kept: the signature names the first one.
    const withGenuineSignatures = (forgedNote: string, genuine: string) => forgedNote.slice(0, forgedNote.lastIndexOf("\n\n") + 2) + genuine.slice(genuine.lastIndexOf("\n\n") + 2);
    const rewritten = new Map([...forged.notes].map(([size, note]) => [size, size < 16 ? good.notes.get(size)! : withGenuineSignatures(note, good.notes.get(size)!)]));
    const r = verify(writeLines(lines({ ...forged, notes: rewritten })), ...pinned);
    expect(r.code).toBe(1);
    expect(r.first).toMatch(/^checkpoint size 16 \(line \d+\): invalid signature by countersign\.test; the checkpoint was altered after signing or forged$/);
  });

  it("names a rollback against a saved checkpoint when the newest events and their checkpoints are gone", () => {
    const saved = writeNote(good.notes.get(40)!);
    const cut: Built = { ...good, header: { ...good.header, toSeq: "29" }, events: good.events.slice(0, 29), notes: new Map([...good.notes].filter(([s]) => s <= 24)), proofs: good.proofs.filter((p) => p.to <= 24) };
    const r = verify(writeLines(lines(cut)), ...pinned, "--checkpoint", saved);
    expect(r.code).toBe(1);
    expect(r.first).toBe(`rollback: the export's latest checkpoint has size 24, smaller than the saved checkpoint (${saved}) of size 40: events 25..40 were removed`);
    // Without the saved checkpoint the shortened export is self-consistent, except its uncovered tail.
    expect(verify(writeLines(lines(cut)), ...pinned).first).toBe("events seq 25..29 are not covered by a signed checkpoint");
  });

  it("names events removed from the end under a checkpoint that still covers them", () => {
    const cut = { ...good, header: { ...good.header, toSeq: "37" }, events: good.events.slice(0, 37) };
    expect(verify(writeLines(lines(cut)), ...pinned).first).toBe("checkpoint size 40 covers seqs 38..40, which are missing from the export (events were removed from its end)");
  });

  it("names a gap where a middle event was deleted", () => {
    const r = verify(writeLines(lines({ ...good, events: good.events.filter((e) => e.seq !== 7) })), ...pinned);
    expect(r.code).toBe(1);
    expect(r.first).toBe("gap: seq 7 is missing");
  });

  it("names two events in the wrong order", () => {
    const events = [...good.events];
    [events[4], events[5]] = [events[5], events[4]];
    expect(verify(writeLines(lines({ ...good, events })), ...pinned).first).toMatch(/^out of order: seq 5 \(line \d+\) comes after seq 6$/);
  });

  it("names a forged event inserted in the middle (renumbered, or with a repeated seq)", () => {
    const renumbered = [...good.events.slice(0, 3), { seq: 4, leaf: { ...fakeLeaf(4), type: "forged" } }, ...good.events.slice(3).map((e) => ({ seq: e.seq + 1, leaf: { ...e.leaf, seq: String(e.seq + 1) } }))];
    const r = verify(writeLines(lines({ ...good, header: { ...good.header, toSeq: "41" }, events: renumbered })), ...pinned);
    expect(r.first).toBe("checkpoint size 8 does not match: some event in seqs 1..8 was changed, inserted or removed");
    const repeated = [...good.events.slice(0, 4), { seq: 4, leaf: { ...fakeLeaf(4), type: "forged" } }, ...good.events.slice(4)];
    expect(verify(writeLines(lines({ ...good, events: repeated })), ...pinned).first).toMatch(/^duplicate: seq 4 appears more than once \(again at line \d+\)$/);
  });

  it("names an event added after the last checkpoint", () => {
    const r = verify(writeLines(lines({ ...good, header: { ...good.header, toSeq: "41" }, events: [...good.events, { seq: 41, leaf: fakeLeaf(41) }] })), ...pinned);
    expect(r.code).toBe(1);
    expect(r.first).toBe("events seq 41..41 are not covered by a signed checkpoint");
  });

  it("names an event whose leaf.seq is not its line's seq", () => {
    const events = good.events.map((e) => (e.seq === 3 ? { ...e, leaf: { ...e.leaf, seq: "4" } } : e));
    expect(verify(writeLines(lines({ ...good, events })), ...pinned).first).toMatch(/^event seq 3 \(line \d+\) carries leaf\.seq "4"$/);
  });

  it("names a checkpoint signed by another key", async () => {
    const impostor = noteSigner(LOG_NAME, randomBytes(32));
    const notes = new Map(good.notes);
    notes.set(16, await checkpointNote(good.log, 16, impostor));
    const r = verify(writeLines(lines({ ...good, notes })), ...pinned);
    expect(r.first).toMatch(/^checkpoint size 16 \(line \d+\) is not signed by the log key countersign\.test\+[0-9a-f]{8}$/);
    // The impostor's key inside the export does not help when the auditor pins the real one.
    const swapped = verify(writeLines(lines({ ...good, header: { ...good.header, logKey: verifierKey(impostor.name, impostor.publicKey) }, notes })), ...pinned);
    expect(swapped.code).toBe(1);
    expect(swapped.stderr).toMatch(/the export names a different log key/);
  });

  it("names a fork against a saved checkpoint", async () => {
    // The log's own key signs a second history: each export is consistent on its own.
    const other = await buildExport(40, SIZES);
    const savedAt20 = writeNote(await checkpointNote(good.log, 20));
    const r = verify(writeLines(lines(other)), ...pinned, "--checkpoint", savedAt20);
    expect(r.code).toBe(1);
    expect(r.first).toBe(`fork: the export's events give a different root at size 20 than the saved checkpoint (${savedAt20})`);
    const savedAt24 = writeNote(good.notes.get(24)!);
    expect(verify(writeLines(lines(other)), ...pinned, "--checkpoint", savedAt24).first).toBe(`fork: the saved checkpoint (${savedAt24}) of size 24 has a different root than the export's checkpoint of that size`);
    // And the genuine export agrees with both.
    expect(verify(writeLines(lines(good)), ...pinned, "--checkpoint", savedAt20, "--checkpoint", savedAt24).code).toBe(0);
  });

  it("names a forged witness cosignature", () => {
    const notes = new Map(good.notes);
    const note = notes.get(32)!;
    const cosignature = note.slice(note.lastIndexOf("— witness.test/w1 ") + "— witness.test/w1 ".length, -1);
    const bytes = Buffer.from(cosignature, "base64");
    bytes[20] ^= 1;
    notes.set(32, note.replace(cosignature, bytes.toString("base64")));
    const r = verify(writeLines(lines({ ...good, notes })), ...pinned);
    expect(r.code).toBe(1);
    expect(r.first).toMatch(/^checkpoint size 32 \(line \d+\) carries an invalid cosignature by witness\.test\/w1$/);
  });

  it("fails --require-witness when too few pinned witnesses cosigned", () => {
    const r = verify(writeLines(lines(good)), ...pinned, "--require-witness", "2");
    expect(r.first).toBe("the latest checkpoint (size 40) carries 1 valid witness cosignature, fewer than the 2 required");
    const stranger = noteSigner("witness.test/w2", randomBytes(32), SIG_COSIGNATURE_V1);
    const unknownWitness = verify(writeLines(lines(good)), "--log-key", LOG_KEY, "--witness-key", verifierKey(stranger.name, stranger.publicKey, SIG_COSIGNATURE_V1), "--require-witness", "1");
    expect(unknownWitness.first).toBe("the latest checkpoint (size 40) carries 0 valid witness cosignatures, fewer than the 1 required");
  });

  it("exits 2 on usage errors and unreadable input", () => {
    expect(spawnSync(process.execPath, [SCRIPT], { encoding: "utf8" }).status).toBe(2);
    expect(verify(path.join(dir, "absent.jsonl")).code).toBe(2);
    expect(verify(writeLines(["not json"])).code).toBe(2);
    expect(verify(writeLines(lines(good)), "--log-key", "nonsense").code).toBe(2);
    expect(verify(writeLines(lines(good)), "--require-witness", "1").first).toBe("--require-witness needs the witnesses' keys given with --witness-key");
  });
});

describe("an export cosigned by a running witness", () => {
  it("verifies with the witness pinned and required", async () => {
    const state = path.join(dir, "witness-state.jsonl");
    const running = await startWitnessServer({ signer: witnessSigner, logKeys: [parseVerifierKey(LOG_KEY)], stateFile: state, port: 0 });
    try {
      const built = await buildExport(30, [10, 30]);
      let witnessed = 0;
      for (const size of [10, 30]) {
        const note = signNote(formatCheckpoint({ origin: ORIGIN, size, rootHash: await built.log.root(size) }), logSigner);
        const outcome = await requestCosignature(running.url, { oldSize: witnessed, consistencyProof: await built.log.consistencyProof(witnessed, size), note });
        expect(outcome.kind).toBe("cosigned");
        if (outcome.kind === "cosigned") built.notes.set(size, note + outcome.lines.join(""));
        witnessed = size;
      }
      const r = verify(writeLines(lines(built)), ...pinned, "--require-witness", "1");
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/checkpoint size 30: signed by the log; witness\.test\/w1 at \d{4}-/);
    } finally {
      await running.close();
    }
  });
});

describe("the offline verifier on a filtered export", () => {
  async function filtered() {
    const built = await buildExport(40, [24, 40]);
    const kept = built.events.filter((e) => e.seq % 3 === 1);
    for (const e of kept) {
      const treeSize = e.seq <= 24 && e.seq % 2 === 0 ? 24 : 40;
      e.inclusion = { treeSize: String(treeSize), path: (await built.log.inclusionProof(e.seq - 1, treeSize)).map(toHex) };
    }
    return { ...built, header: { ...built.header, complete: false }, events: kept };
  }

  it("verifies each event's inclusion proof", async () => {
    const r = verify(writeLines(lines(await filtered())), ...pinned);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^VERIFIED: 14 events .* \(filtered export, each event checked by its inclusion proof\)/);
  });

  it("names the first event whose inclusion proof fails", async () => {
    const built = await filtered();
    const target = built.events.find((e) => e.seq === 13)!;
    target.inclusion!.path[1] = toHex(randomBytes(32));
    const r = verify(writeLines(lines(built)), ...pinned);
    expect(r.code).toBe(1);
    expect(r.first).toMatch(/^event seq 13 \(line \d+\): its inclusion proof in the checkpoint of size 40 fails: the event was changed or is not in the log$/);
    const edited = await filtered();
    edited.events[2].leaf = { ...edited.events[2].leaf, actorId: "someone-else" };
    expect(verify(writeLines(lines(edited)), ...pinned).first).toMatch(/^event seq 7 \(line \d+\): its inclusion proof in the checkpoint of size \d+ fails/);
  });

  it("requires a consistency proof between its checkpoints", async () => {
    const r = verify(writeLines(lines({ ...(await filtered()), proofs: [] })), ...pinned);
    expect(r.first).toBe("no consistency proof between the checkpoints of sizes 24 and 40");
  });
});

// ---- the standalone script's own building blocks agree with the library -------------------------

type Script = {
  leafHash: (b: Uint8Array) => Buffer;
  rootOf: (h: Uint8Array[]) => Buffer;
  verifyInclusion: (leaf: Uint8Array, index: number, size: number, proof: Uint8Array[], root: Uint8Array) => boolean;
  verifyConsistency: (m: number, n: number, a: Uint8Array, b: Uint8Array, proof: Uint8Array[]) => boolean;
  canonicalJson: (v: unknown) => string;
  isCanonicalFastPath: (text: string) => boolean;
  isCanonicalFastPathBytes: (bytes: Uint8Array) => boolean;
  parseVerifierKey: (text: string) => { name: string; keyId: Buffer };
  verifyNote: (text: string, keys: unknown[]) => { verified: { key: { name: string } }[] };
};

function plainKeys(value: JsonValue): boolean {
  if (Array.isArray(value)) return value.every(plainKeys);
  if (value === null || typeof value !== "object") return true;
  return Object.entries(value).every(([k, v]) => /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/.test(k) && plainKeys(v));
}

describe("the standalone script's functions", () => {
  let script: Script;
  beforeAll(async () => {
    const url = pathToFileURL(SCRIPT).href;
    script = (await import(/* @vite-ignore */ url)) as Script;
  });

  it("agree with the library on the RFC 6962 vectors and on random trees", async () => {
    // Leaf inputs and roots of the CT/trillian vectors (see merkle.test.ts for the source).
    const inputs = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"].map((h) => Buffer.from(h, "hex"));
    const leaves = inputs.map((b) => script.leafHash(b));
    expect(leaves.map(toHex)).toEqual(inputs.map((b) => toHex(leafHash(b))));
    expect(toHex(script.rootOf(leaves))).toBe("5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328");
    expect(toHex(script.rootOf([]))).toBe(toHex(EMPTY_ROOT));
    // Every inclusion and consistency proof of the 8-leaf vector tree, generated by the library.
    const vectorLog = new MemoryLog();
    inputs.forEach((b) => vectorLog.append(b));
    for (let size = 1; size <= 8; size++) {
      const root = await vectorLog.root(size);
      expect(toHex(script.rootOf(leaves.slice(0, size)))).toBe(toHex(root));
      for (let index = 0; index < size; index++) {
        const proof = await vectorLog.inclusionProof(index, size);
        expect(script.verifyInclusion(leaves[index], index, size, proof, root)).toBe(true);
        expect(script.verifyInclusion(leaves[index], index, size * 2, proof, root)).toBe(false);
      }
      for (let old = 1; old <= size; old++) {
        const proof = await vectorLog.consistencyProof(old, size);
        const oldRoot = await vectorLog.root(old);
        expect(script.verifyConsistency(old, size, oldRoot, root, proof)).toBe(true);
        if (old < size) expect(script.verifyConsistency(old, size, root, oldRoot, proof)).toBe(false);
      }
    }
    const log = new MemoryLog();
    for (let i = 0; i < 137; i++) log.append(randomBytes(9));
    for (const size of [1, 2, 5, 64, 100, 137]) {
      const hashes = await Promise.all(Array.from({ length: size }, (_, i) => log.getPerfect(0, i)));
      expect(toHex(script.rootOf(hashes))).toBe(toHex(rootOf(hashes)));
      const root = await log.root(size);
      for (const index of [0, size - 1, Math.floor(size / 3)]) {
        const proof = await log.inclusionProof(index, size);
        expect(script.verifyInclusion(hashes[index], index, size, proof, root)).toBe(true);
        expect(script.verifyInclusion(hashes[index], index, size, proof, randomBytes(32))).toBe(false);
        expect(verifyInclusion(hashes[index], index, size, proof, root)).toBe(true);
      }
      for (const old of [1, Math.max(1, size - 1), Math.ceil(size / 2)]) {
        const proof = await log.consistencyProof(old, size);
        const oldRoot = await log.root(old);
        expect(script.verifyConsistency(old, size, oldRoot, root, proof)).toBe(true);
        expect(verifyConsistency(old, size, oldRoot, root, proof)).toBe(true);
        if (proof.length > 0) expect(script.verifyConsistency(old, size, oldRoot, root, proof.slice(1))).toBe(false);
      }
    }
  });

  it("canonicalise JSON as the console does, and the fast path accepts exactly canonical text", () => {
    const samples: JsonValue[] = [
      { b: 1, a: [true, false, null], "€": "x", é: 2, "\u0001": "\u007f\u2028", A: { z: -0, y: 1e21, x: 1.5e-7, w: 0.1 + 0.2 } },
      { "\ud83d\ude00": "😀", "\ufb33": 1, "\u00e9": 2 },
      { seq: "12", text: 'quote " backslash \\ tab \t newline \n bell \u0007', big: 9007199254740991, neg: -12.5 },
      [],
      {},
      { nested: [[[{ k: [1, [2, [3]]] }]]] },
    ];
    for (let i = 0; i < 200; i++) samples.push(fakeLeaf(i + 1));
    for (const value of samples) {
      const expected = canonicalJson(value);
      expect(script.canonicalJson(JSON.parse(JSON.stringify(value)))).toBe(expected);
      // The fast path leaves keys that are not plain ASCII to the full canonicaliser.
      expect(script.isCanonicalFastPath(expected), expected.slice(0, 60)).toBe(plainKeys(value));
    }
    const invalidUtf8 = [Buffer.from([0x22, 0xc0, 0xaf, 0x22]), Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]), Buffer.from([0x22, 0xe2, 0x82, 0x22]), Buffer.from([0x22, 0xf4, 0x90, 0x80, 0x80, 0x22])];
    for (const bytes of invalidUtf8) expect(script.isCanonicalFastPathBytes(bytes), bytes.toString("hex")).toBe(false);
    expect(script.isCanonicalFastPathBytes(Buffer.from('"€😀é\u2028"', "utf8"))).toBe(true);
    for (const text of ['{"b":1,"a":2}', '{"a":1,"a":2}', '{"a": 1}', '{"a":1.0}', '{"a":1E3}', '{"a":"\\u0041"}', '{"a":"\\/"}', '{"a":"\\u001F"}', '{"a":-0}', '[1,]', '{"a":01}'])
      expect(script.isCanonicalFastPath(text), text).toBe(false);
    for (const text of ['{"a":1,"b":2}', '{"a":"\\u001f\\n"}', '[1e+21,0.5,-3]', '{"":0,"a":{}}']) expect(script.isCanonicalFastPath(text), text).toBe(true);
    expect(() => script.canonicalJson({ s: "\ud800" })).toThrow(/lone surrogate/);
  });

  it("read keys and notes as the library does (the golang.org/x/mod/sumdb/note example)", () => {
    const key = script.parseVerifierKey("PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW");
    expect(key.keyId.toString("hex")).toBe("c74f20a3");
    const note =
      "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n\n— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";
    expect(script.verifyNote(note, [key]).verified.map((v) => v.key.name)).toEqual(["PeterNeumann"]);
    expect(() => script.verifyNote(note.replace("answer", "Answer"), [key])).toThrow(/invalid signature/);
    const witness = script.parseVerifierKey(WITNESS_KEY);
    const body = formatCheckpoint({ origin: ORIGIN, size: 3, rootHash: randomBytes(32) });
    const cosigned = signNote(body, logSigner) + cosign(body, witnessSigner, 1_767_225_600);
    expect(script.verifyNote(cosigned, [script.parseVerifierKey(LOG_KEY), witness]).verified.map((v) => v.key.name)).toEqual([LOG_NAME, witnessSigner.name]);
    expect(parseVerifierKey(WITNESS_KEY).keyId.equals(witness.keyId)).toBe(true);
  });
});

describe("throughput", () => {
  it("prints the full walk's speed next to raw SHA-256 over the same leaf bytes (a measurement, not an assertion)", async () => {
    const n = 20_000;
    const built = await buildExport(n, [n / 4, n / 2, n]);
    // Every event canonical, as the console writes them.
    const all = lines(built);
    const file = writeLines([all[0], ...built.events.map((e) => `{"kind":"event","seq":"${e.seq}","leaf":${canonicalJson(e.leaf)}}`), ...all.filter((l) => !l.includes('"kind":"event"') && l !== all[0])]);
    const leafBytes = built.events.map((e) => Buffer.from(canonicalJson(e.leaf), "utf8"));
    const script = (await import(/* @vite-ignore */ pathToFileURL(SCRIPT).href)) as { verifyExport: (f: string, o: object) => Promise<{ ok: boolean; canonicalisedEvents: number }> };
    const cpu = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    let raw = Infinity;
    let walk = Infinity;
    for (let round = 0; round < 3; round++) {
      let c = cpu();
      for (const b of leafBytes) createHash("sha256").update(b).digest();
      raw = Math.min(raw, cpu() - c);
      c = cpu();
      const result = await script.verifyExport(file, { logKey: LOG_KEY });
      walk = Math.min(walk, cpu() - c);
      expect(result).toMatchObject({ ok: true, canonicalisedEvents: 0 });
    }
    console.log(`verifier walk over ${n} events: ${walk.toFixed(0)} ms CPU; raw SHA-256 (createHash) of the same leaf bytes: ${raw.toFixed(0)} ms CPU; throughput ratio ${(raw / walk).toFixed(2)} (bench/verify.ts measures 1,000,000)`);
  });
});
