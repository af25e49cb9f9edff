import { randomBytes } from "node:crypto";
import { spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { MemoryLog } from "./memory-log";
import {
  SIG_COSIGNATURE_V1,
  formatCheckpoint,
  noteSigner,
  parseVerifierKey,
  signNote,
  verifierKey,
  verifyCosignature,
  type NoteSigner,
} from "./signed-note";
import { requestCosignature } from "./witness-client";
import { startWitnessServer, type RunningWitness } from "./witness-server";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const logSigner = noteSigner("console.example", randomBytes(32));
const logKey = parseVerifierKey(verifierKey(logSigner.name, logSigner.publicKey));
const witnessSigner = noteSigner("witness.example/w1", randomBytes(32), SIG_COSIGNATURE_V1);
const witnessKey = parseVerifierKey(verifierKey(witnessSigner.name, witnessSigner.publicKey, SIG_COSIGNATURE_V1));
const ORIGIN = "console.example/tenant-a";

async function signedCheckpoint(log: MemoryLog, size: number, signer: NoteSigner = logSigner, origin = ORIGIN) {
  const body = formatCheckpoint({ origin, size, rootHash: await log.root(size) });
  return { body, note: signNote(body, signer) };
}

function growLog(log: MemoryLog, count: number) {
  for (let i = 0; i < count; i++) log.append(randomBytes(20));
}

describe("the witness server", () => {
  let stateFile: string;
  let running: RunningWitness;
  const start = async () => {
    running = await startWitnessServer({ signer: witnessSigner, logKeys: [logKey], stateFile, port: 0, now: () => 1_750_000_000 });
    return running;
  };

  beforeEach(async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "witness-test-"));
    dirs.push(dir);
    stateFile = path.join(dir, "state.jsonl");
    await start();
    return () => running.close();
  });

  it("cosigns a first checkpoint (old 0) and then a consistent extension", async () => {
    const log = new MemoryLog();
    growLog(log, 10);
    const first = await signedCheckpoint(log, 10);
    const a = await requestCosignature(running.url, { oldSize: 0, consistencyProof: [], note: first.note });
    expect(a.kind).toBe("cosigned");
    if (a.kind !== "cosigned") return;
    expect(verifyCosignature(first.body, a.lines[0], witnessKey)).toEqual({ time: 1_750_000_000 });

    growLog(log, 7);
    const second = await signedCheckpoint(log, 17);
    const b = await requestCosignature(running.url, { oldSize: 10, consistencyProof: await log.consistencyProof(10, 17), note: second.note });
    expect(b.kind).toBe("cosigned");
    if (b.kind === "cosigned") expect(verifyCosignature(second.body, b.lines[0], witnessKey)).not.toBeNull();

    const latest = await fetch(`${running.url}/latest?origin=${encodeURIComponent(ORIGIN)}`).then((r) => r.json());
    expect(latest).toMatchObject({ origin: ORIGIN, size: 17 });
    expect(await fetch(running.url).then((r) => r.text())).toBe(`${witnessKey.text}\n`);
  });

  it("refuses a second root for a tree size it already cosigned (a fork)", async () => {
    const log = new MemoryLog();
    growLog(log, 5);
    const first = await signedCheckpoint(log, 5);
    expect((await requestCosignature(running.url, { oldSize: 0, consistencyProof: [], note: first.note })).kind).toBe("cosigned");
    const fork = new MemoryLog();
    growLog(fork, 5);
    const forked = await signedCheckpoint(fork, 5);
    const outcome = await requestCosignature(running.url, { oldSize: 5, consistencyProof: [], note: forked.note });
    expect(outcome).toMatchObject({ kind: "refused", status: 422 });
    if (outcome.kind === "refused") expect(outcome.message).toMatch(/different root for size 5/);
    // Re-sending the same checkpoint is cosigned again.
    expect((await requestCosignature(running.url, { oldSize: 5, consistencyProof: [], note: first.note })).kind).toBe("cosigned");
  });

  it("refuses a smaller tree", async () => {
    const log = new MemoryLog();
    growLog(log, 9);
    await requestCosignature(running.url, { oldSize: 0, consistencyProof: [], note: (await signedCheckpoint(log, 9)).note });
    const smaller = await signedCheckpoint(log, 4);
    // Claiming the witness's size: old is above the checkpoint's size.
    expect(await requestCosignature(running.url, { oldSize: 9, consistencyProof: [], note: smaller.note })).toMatchObject({ kind: "refused", status: 400 });
    // Claiming its own size: not what the witness holds.
    expect(await requestCosignature(running.url, { oldSize: 4, consistencyProof: [], note: smaller.note })).toEqual({ kind: "conflict", witnessSize: 9 });
  });

  it("refuses a bad consistency proof", async () => {
    const log = new MemoryLog();
    growLog(log, 6);
    await requestCosignature(running.url, { oldSize: 0, consistencyProof: [], note: (await signedCheckpoint(log, 6)).note });
    growLog(log, 6);
    const proof = await log.consistencyProof(6, 12);
    proof[1] = randomBytes(32);
    const outcome = await requestCosignature(running.url, { oldSize: 6, consistencyProof: proof, note: (await signedCheckpoint(log, 12)).note });
    expect(outcome).toMatchObject({ kind: "refused", status: 422 });
    // And the witness still stands at 6.
    const latest = await fetch(`${running.url}/latest?origin=${encodeURIComponent(ORIGIN)}`).then((r) => r.json());
    expect(latest.size).toBe(6);
  });

  it("refuses checkpoints of unknown origins and of untrusted keys", async () => {
    const log = new MemoryLog();
    growLog(log, 3);
    const stranger = noteSigner("console.example", randomBytes(32));
    expect(await requestCosignature(running.url, { oldSize: 0, consistencyProof: [], note: (await signedCheckpoint(log, 3, stranger)).note })).toMatchObject({ kind: "refused", status: 403 });
    const elsewhere = noteSigner("other.example", randomBytes(32));
    expect(
      await requestCosignature(running.url, { oldSize: 0, consistencyProof: [], note: (await signedCheckpoint(log, 3, elsewhere, "other.example/tenant-a")).note }),
    ).toMatchObject({ kind: "refused", status: 404 });
    // The origin must be <key name>/<something>, not the key name alone or a longer name.
    expect(await requestCosignature(running.url, { oldSize: 0, consistencyProof: [], note: (await signedCheckpoint(log, 3, logSigner, "console.example")).note })).toMatchObject({ kind: "refused", status: 404 });
    expect(await requestCosignature(running.url, { oldSize: 0, consistencyProof: [], note: (await signedCheckpoint(log, 3, logSigner, "console.example.evil/t")).note })).toMatchObject({ kind: "refused", status: 404 });
  });

  it("answers a stale old size with 409 and its latest size as text/x.tlog.size", async () => {
    const log = new MemoryLog();
    growLog(log, 8);
    await requestCosignature(running.url, { oldSize: 0, consistencyProof: [], note: (await signedCheckpoint(log, 8)).note });
    growLog(log, 4);
    const body = `old 3\n${(await log.consistencyProof(3, 12)).map((h) => h.toString("base64") + "\n").join("")}\n${(await signedCheckpoint(log, 12)).note}`;
    const response = await fetch(`${running.url}/add-checkpoint`, { method: "POST", body });
    expect(response.status).toBe(409);
    expect(response.headers.get("content-type")).toBe("text/x.tlog.size");
    expect(await response.text()).toBe("8\n");
  });

  it("refuses malformed requests with 400", async () => {
    const log = new MemoryLog();
    growLog(log, 2);
    const { note } = await signedCheckpoint(log, 2);
    for (const body of [`old x\n\n${note}`, `old 0\n${note}`, `old 0\nnot-base64\n\n${note}`, `old 0\n\n${note.replace("\n\n", "\r\n\n")}`, `old 01\n\n${note}`]) {
      const response = await fetch(`${running.url}/add-checkpoint`, { method: "POST", body });
      expect(response.status, body.slice(0, 20)).toBe(400);
    }
    expect((await fetch(`${running.url}/add-checkpoint`)).status).toBe(405);
  });

  it("survives a restart: the state file is reloaded, a torn last line is dropped", async () => {
    const log = new MemoryLog();
    growLog(log, 11);
    await requestCosignature(running.url, { oldSize: 0, consistencyProof: [], note: (await signedCheckpoint(log, 11)).note });
    await running.close();
    // A crash in the middle of the next append (never answered).
    appendFileSync(stateFile, '{"origin":"console.example/tenant-a","size":');
    await start();
    const fork = new MemoryLog();
    growLog(fork, 11);
    expect(await requestCosignature(running.url, { oldSize: 11, consistencyProof: [], note: (await signedCheckpoint(fork, 11)).note })).toMatchObject({ kind: "refused", status: 422 });
    expect(await requestCosignature(running.url, { oldSize: 0, consistencyProof: [], note: (await signedCheckpoint(log, 11)).note })).toEqual({ kind: "conflict", witnessSize: 11 });
    growLog(log, 2);
    expect((await requestCosignature(running.url, { oldSize: 11, consistencyProof: await log.consistencyProof(11, 13), note: (await signedCheckpoint(log, 13)).note })).kind).toBe("cosigned");
    const lines = readFileSync(stateFile, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => l.size)).toEqual([11, 13]);
  });

  it("serialises concurrent requests: of two forks sent at once, one is cosigned", async () => {
    const a = new MemoryLog();
    const b = new MemoryLog();
    growLog(a, 4);
    growLog(b, 4);
    const outcomes = await Promise.all([a, b].map(async (log) => requestCosignature(running.url, { oldSize: 0, consistencyProof: [], note: (await signedCheckpoint(log, 4)).note })));
    expect(outcomes.map((o) => o.kind).sort()).toEqual(["conflict", "cosigned"]);
  });
});

describe("npm run witness (scripts/witness.ts)", () => {
  it("creates a 0600 key on first start, prints its verifier key and URL, and serves them", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "witness-cli-"));
    dirs.push(dir);
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/witness.ts", "--port", "0", "--state-dir", dir, "--name", "witness.example/cli", "--log-key", logKey.text], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let out = "";
      const started = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          if (/listening on \S+/.test(out)) resolve(out);
        });
        child.once("exit", (code) => reject(new Error(`witness exited ${code}: ${out}`)));
      });
      const vkey = /witness verifier key: (\S+)/.exec(started)?.[1] ?? "";
      const url = /listening on (\S+)/.exec(started)?.[1] ?? "";
      expect(parseVerifierKey(vkey)).toMatchObject({ name: "witness.example/cli", type: SIG_COSIGNATURE_V1 });
      expect(statSync(path.join(dir, "witness.key")).mode & 0o777).toBe(0o600);
      expect(await fetch(url).then((r) => r.text())).toBe(`${vkey}\n`);
      const log = new MemoryLog();
      growLog(log, 3);
      const outcome = await requestCosignature(url, { oldSize: 0, consistencyProof: [], note: (await signedCheckpoint(log, 3)).note });
      expect(outcome.kind).toBe("cosigned");
    } finally {
      child.kill("SIGTERM");
    }
  });
});

describe("the witness client", () => {
  it("reports an unreachable witness", async () => {
    const outcome = await requestCosignature("http://127.0.0.1:9", { oldSize: 0, consistencyProof: [], note: "x\n\n— a AAAAAAAA\n" }, { timeoutMs: 2000 });
    expect(outcome.kind).toBe("unreachable");
  });
});
