/**
 * Offline-verifier throughput (a script, not a test): writes a complete audit export of N events
 * with signed checkpoints, then times, in this process, raw SHA-256 over the same leaf bytes and the
 * standalone verifier's full walk (scripts/verify-audit-export.mjs, imported as a module), and then
 * the verifier as an auditor runs it (a child process, Node start-up included).
 *
 *   node --import tsx bench/verify.ts [events, default 1000000]
 */
import { createHash, hash as oneShotHash, randomBytes } from "node:crypto";
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { EMPTY_FRONTIER, appendLeaf, frontierRoot, leafHash, type Frontier } from "@/lib/audit/transparency/merkle";
import { formatCheckpoint, noteSigner, signNote, verifierKey } from "@/lib/audit/transparency/signed-note";
import { canonicalJson } from "@/lib/canonical/canonical-json";

const N = Number(process.argv[2] ?? 1_000_000);
const SCRIPT = path.join(process.cwd(), "scripts", "verify-audit-export.mjs");
const dir = mkdtempSync(path.join(os.tmpdir(), "countersign-bench-verify-"));
const file = path.join(dir, "export.jsonl");

const signer = noteSigner("bench.countersign", randomBytes(32));
const logKey = verifierKey(signer.name, signer.publicKey);
const origin = `${signer.name}/tenant-bench`;
const checkpointSizes = new Set([Math.floor(N / 4), Math.floor(N / 2), N - 1000, N].filter((s) => s > 0));
const TYPES = ["approval.requested", "approval.decided", "action.executed", "member.invited", "policy.saved"];

console.log(`writing ${N.toLocaleString("en")} events to ${file} …`);
const out = createWriteStream(file);
const write = (line: string) => (out.write(line + "\n") ? undefined : new Promise<void>((resolve) => out.once("drain", () => resolve())));
await write(
  JSON.stringify({ kind: "countersign.audit-export", version: 1, tenantId: "tenant-bench", origin, exportedAt: new Date().toISOString(), logKey, witnessKeys: [], complete: true, fromSeq: "1", toSeq: String(N) }),
);
const leafBytes: Buffer[] = [];
let frontier: Frontier = EMPTY_FRONTIER;
const notes: string[] = [];
for (let seq = 1; seq <= N; seq++) {
  const leaf = {
    seq: String(seq),
    type: TYPES[seq % TYPES.length],
    actorId: `user_${seq % 97}`,
    at: new Date(Date.UTC(2026, 0, 1) + seq * 1000).toISOString(),
    data: { approvalId: `apr_${(seq * 2654435761) % 4294967296}`, amountMinor: seq * 13, reason: `within policy limit ${seq % 10}` },
  };
  const text = canonicalJson(leaf);
  const bytes = Buffer.from(text, "utf8");
  leafBytes.push(bytes);
  frontier = appendLeaf(frontier, leafHash(bytes)).frontier;
  if (checkpointSizes.has(seq)) notes.push(signNote(formatCheckpoint({ origin, size: seq, rootHash: frontierRoot(frontier) }), signer));
  const pending = write(`{"kind":"event","seq":"${seq}","leaf":${text}}`);
  if (pending) await pending;
}
for (const note of notes) await write(JSON.stringify({ kind: "checkpoint", note }));
await new Promise<void>((resolve) => out.end(() => resolve()));
const totalBytes = leafBytes.reduce((sum, b) => sum + b.length, 0);
console.log(`export: ${(statSync(file).size / 1e6).toFixed(0)} MB; leaf bytes: ${(totalBytes / 1e6).toFixed(0)} MB (${(totalBytes / N).toFixed(0)} B per leaf)`);

// CPU time of this process (user + system), besides wall time: the two differ on a shared machine.
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
type Timing = { wall: number; cpu: number };
async function best(runs: number, work: () => unknown): Promise<Timing> {
  const result = { wall: Infinity, cpu: Infinity };
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const c = cpuMs();
    await work();
    result.wall = Math.min(result.wall, performance.now() - t);
    result.cpu = Math.min(result.cpu, cpuMs() - c);
  }
  return result;
}

const rawCreateHash = await best(3, () => {
  for (const b of leafBytes) createHash("sha256").update(b).digest();
});
const rawOneShot = await best(3, () => {
  for (const b of leafBytes) oneShotHash("sha256", b, "buffer");
});

type VerifierModule = { verifyExport: (file: string, options: { logKey: string }) => Promise<{ ok: boolean; problems: { message: string }[]; canonicalisedEvents: number }> };
const verifier = (await import(/* @vite-ignore */ pathToFileURL(SCRIPT).href)) as VerifierModule;
const walk = await best(3, async () => {
  const result = await verifier.verifyExport(file, { logKey });
  if (!result.ok) throw new Error(`the bench export did not verify: ${result.problems[0]?.message}`);
  if (result.canonicalisedEvents > 0) console.log(`canonicalised (slow-path) events: ${result.canonicalisedEvents}`);
});

const t = performance.now();
const child = spawnSync(process.execPath, [SCRIPT, file, "--log-key", logKey], { encoding: "utf8" });
const processMs = performance.now() - t;
if (child.status !== 0) throw new Error(`the verifier exited ${child.status}: ${child.stderr}`);

const rate = (ms: number) => `${((N / ms) * 1000).toLocaleString("en", { maximumFractionDigits: 0 })} events/s`;
const show = (label: string, x: Timing) => console.log(`${label.padEnd(36)} wall ${x.wall.toFixed(0).padStart(6)} ms (${rate(x.wall)}), cpu ${x.cpu.toFixed(0).padStart(6)} ms`);
show("raw SHA-256, createHash per leaf", rawCreateHash);
show("raw SHA-256, crypto.hash per leaf", rawOneShot);
show("verifier full walk, in process", walk);
console.log(`${"verifier as a child process".padEnd(36)} wall ${processMs.toFixed(0).padStart(6)} ms (${rate(processMs)}), Node start-up included`);
console.log(`throughput ratio, walk vs raw createHash:  wall ${(rawCreateHash.wall / walk.wall).toFixed(2)}, cpu ${(rawCreateHash.cpu / walk.cpu).toFixed(2)}`);
console.log(`throughput ratio, walk vs raw crypto.hash: wall ${(rawOneShot.wall / walk.wall).toFixed(2)}, cpu ${(rawOneShot.cpu / walk.cpu).toFixed(2)}`);
if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
else console.log(`kept ${file}; log key ${logKey}`);
