import { execFile } from "node:child_process";
import { createReadStream, createWriteStream } from "node:fs";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Zip, ZipPassThrough } from "fflate";
import type { Db } from "@/lib/db/client";
import { sqlClientOf, type Queryable } from "@/lib/db/sql";
import { dedicatedConnection } from "@/lib/db/pool-registry";
import { auditKeys, auditOrigin } from "@/lib/audit/audit-keys";
import { csvCell } from "@/lib/audit/audit-export-format";
import { verifiableExportLines } from "@/lib/audit/verifiable-export";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";
import { configuredWitnesses } from "@/lib/audit/witness-checkpoint";
import { listMembers } from "@/lib/members/list-members";
import { readDecisionLatencies, type DecisionCursor } from "@/lib/db/statements/audit/read-decision-latencies";
import { sliceTimer } from "@/lib/scheduling/slice-timer";
import { readLatestAuditVerification } from "@/lib/db/statements/audit/read-latest-audit-verification";

const run = promisify(execFile);
const VERIFIER = path.join(process.cwd(), "scripts", "verify-audit-export.mjs");

/** The files of an evidence pack, in the order they appear in the archive. */
export const EVIDENCE_FILES = [
  "README.txt", "events.jsonl", "verify-audit-export.mjs", "verification.json", "keys.json", "policies.json", "roles.json", "decisions.csv",
] as const;

export type EvidencePack = { dir: string; files: ReadonlyArray<(typeof EVIDENCE_FILES)[number]>; verified: boolean };

const day = (text: string) => new Date(`${text}T00:00:00.000Z`);

/**
 * An oversight evidence pack for the UTC days [from, to] (EU AI Act Art. 12/14/26, ISO 42001: who
 * verified which output, when, under which rule and authority), checkable without the console:
 * events.jsonl (verifiable format, inclusion and consistency proofs, checkpoints), the standalone
 * verifier and its result (verification.json), keys.json, policies.json (versions in force),
 * roles.json (holders and changes), decisions.csv (every vote). Written to a private temporary
 * folder that `zipEvidencePack` streams and removes.
 */
export async function buildEvidencePack(db: Db, input: { tenantId: string; from: string; to: string }): Promise<EvidencePack> {
  const { tenantId } = input;
  const from = day(input.from);
  const to = new Date(day(input.to).getTime() + 86_400_000);
  const dir = await mkdtemp(path.join(os.tmpdir(), "countersign-evidence-"));
  try {
    const write = (name: string, value: unknown) => writeFile(path.join(dir, name), typeof value === "string" ? value : `${JSON.stringify(value, null, 2)}\n`);
    const keys = auditKeys();
    await writeLines(path.join(dir, "events.jsonl"), verifiableExportLines(db, { tenantId, filters: { from: input.from, to: input.to } }));
    await copyFile(VERIFIER, path.join(dir, "verify-audit-export.mjs"));

    const offline = await runVerifier(path.join(dir, "events.jsonl"), keys.verifierKey);
    const [consoleCheck, lastFull] = await Promise.all([
      verifyAuditChain(db, tenantId, { kind: "incremental" }),
      readLatestAuditVerification(db, { tenantId, kind: "full" }),
    ]);
    await write("verification.json", {
      offlineVerifier: offline,
      console: { incremental: { ok: consoleCheck.ok, treeSize: consoleCheck.treeSize.toString(), problems: consoleCheck.problems }, lastFullWalk: lastFull && { ...lastFull, checked: lastFull.checked.toString(), treeSize: lastFull.treeSize.toString() } },
    });
    await write("keys.json", { origin: auditOrigin(tenantId, keys), logKey: keys.verifierKey, witnessKeys: configuredWitnesses().keys });

    await writeLines(path.join(dir, "policies.json"), policyLines(db, { tenantId, from, to }));

    const [members, changes] = await Promise.all([
      listMembers(db, tenantId),
      db.auditEvent.findMany({ where: { tenantId, type: "member.roles_changed", at: { lt: to } }, orderBy: { id: "asc" }, select: { at: true, actorLabel: true, data: true } }),
    ]);
    await write("roles.json", {
      note: "Roles now, and every change up to the end of the period (from the audit log).",
      members: members.map((m) => ({ email: m.email, name: m.name, roles: m.roles, disabled: m.disabled })),
      changes: changes.map((c) => ({ at: c.at.toISOString(), by: c.actorLabel, ...(c.data as object) })),
    });

    // All pages in one snapshot (separate ones could show a later vote without an earlier one of
    // the same time), on a connection of its own: it lasts as long as the file takes to write.
    await inSnapshotOfItsOwn(db, "countersign-evidence-pack", (q) => writeLines(path.join(dir, "decisions.csv"), decisionLines(q, { tenantId, from, to })));

    await write("README.txt", readme({ ...input, origin: auditOrigin(tenantId, keys), logKey: keys.verifierKey, verified: offline.ok }));
    return { dir, files: EVIDENCE_FILES, verified: offline.ok };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Runs `fn` in one read-only REPEATABLE READ transaction on a connection outside the pool, then closes it. */
async function inSnapshotOfItsOwn(db: Db, name: string, fn: (q: Queryable) => Promise<void>): Promise<void> {
  const conn = dedicatedConnection(db, name);
  await conn.connect();
  try {
    await conn.query("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    await fn(sqlClientOf(conn));
    await conn.query("COMMIT");
  } finally {
    await conn.end();
  }
}

/** Writes `lines` to a new private file as they come, waiting whenever the disk is behind (a write error ends it). */
async function writeLines(file: string, lines: AsyncIterable<string>): Promise<void> {
  await pipeline(Readable.from(lines), createWriteStream(file, { mode: 0o600 }));
}

/**
 * policies.json: the version in force when [from, to) began and every one created during it, a
 * version at a time (a document may be 300,000 characters).
 */
async function* policyLines(db: Db, input: { tenantId: string; from: Date; to: Date }): AsyncGenerator<string> {
  const atStart = await db.toolPolicy.findFirst({ where: { tenantId: input.tenantId, createdAt: { lte: input.from } }, orderBy: { version: "desc" }, select: { version: true } });
  const versions = await db.toolPolicy.findMany({
    where: { tenantId: input.tenantId, createdAt: { lt: input.to }, version: { gte: atStart?.version ?? 0 } },
    orderBy: { version: "asc" }, select: { id: true },
  });
  yield "[";
  for (const [i, { id }] of versions.entries()) {
    const p = await db.toolPolicy.findUniqueOrThrow({ where: { id } });
    const entry = { version: p.version, createdAt: p.createdAt.toISOString(), createdById: p.createdById, comment: p.comment, document: p.document };
    yield `${i === 0 ? "" : ","}\n${JSON.stringify(entry, null, 2).replace(/^/gm, "  ")}`;
  }
  yield versions.length === 0 ? "]\n" : "\n]\n";
}

const DECISION_COLUMNS = ["decisionId", "actionId", "tool", "revision", "requestedAt", "decidedAt", "seconds", "reviewer", "verdict", "void", "note"] as const;
const DECISION_PAGE = 1_000;

/** decisions.csv: every vote of [from, to), read and written a page at a time, in slices of the event loop. */
async function* decisionLines(q: Queryable, input: { tenantId: string; from: Date; to: Date }): AsyncGenerator<string> {
  yield `${DECISION_COLUMNS.join(",")}\r\n`;
  const slice = sliceTimer();
  let after: DecisionCursor | null = null;
  for (;;) {
    const page = await readDecisionLatencies(q, { ...input, after, limit: DECISION_PAGE });
    for (const d of page) {
      await slice();
      yield `${DECISION_COLUMNS.map((k) => csvCell(d[k] instanceof Date ? (d[k] as Date).toISOString() : d[k])).join(",")}\r\n`;
    }
    if (page.length < DECISION_PAGE) return;
    const last = page[page.length - 1];
    after = { decidedAt: last.decidedAt, decisionId: last.decisionId };
  }
}

/** The standalone verifier's verdict on the pack's events, from a child process (off the request thread). */
async function runVerifier(file: string, logKey: string): Promise<{ ok: boolean; exitCode: number; result: unknown }> {
  try {
    const { stdout } = await run(process.execPath, [VERIFIER, file, "--json", "--log-key", logKey], { maxBuffer: 16 * 1024 * 1024 });
    return { ok: true, exitCode: 0, result: JSON.parse(stdout) as unknown };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    let result: unknown = failed.stderr?.split("\n")[0] ?? String(error);
    try {
      result = JSON.parse(failed.stdout ?? "") as unknown;
    } catch {
      // not JSON: keep the first line of stderr
    }
    return { ok: false, exitCode: typeof failed.code === "number" ? failed.code : 2, result };
  }
}

function readme(p: { tenantId: string; from: string; to: string; origin: string; logKey: string; verified: boolean }): string {
  return `Countersign oversight evidence pack
Tenant ${p.tenantId}, ${p.from} to ${p.to} (UTC days), made ${new Date().toISOString()}.

events.jsonl             the period's audit events, each with its RFC 9162 inclusion proof, and the
                         log's signed (and witnessed) checkpoints with consistency proofs between them
verify-audit-export.mjs  the standalone verifier (Node.js standard library only)
verification.json        its result on events.jsonl when this pack was made (${p.verified ? "verified" : "NOT VERIFIED"}),
                         and the console's own checks
keys.json                the log's public key and the witnesses' keys
policies.json            the policy versions in force during the period
roles.json               members' roles, and every role change up to the end of the period
decisions.csv            every vote of the period: reviewer, verdict, revision, seconds from request

Check it yourself, pinning the log key you obtained independently (e.g. from
/.well-known/countersign-audit-keys of the console, or a checkpoint you saved):

  node verify-audit-export.mjs events.jsonl --log-key '${p.logKey}'

Add --checkpoint <file> for any checkpoint you saved earlier, and --witness-key <key> for the
witnesses you trust. The log is ${p.origin}.
`;
}

/** Streams the pack's files as one ZIP archive (stored, not compressed: streaming, little CPU), then removes them. */
export function zipEvidencePack(pack: EvidencePack): ReadableStream<Uint8Array> {
  const chunks = zipChunks(pack);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (error) {
        console.error("[countersign] evidence pack failed mid-stream:", error);
        controller.error(new Error("The evidence pack stopped early; try again."));
      }
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}

async function* zipChunks(pack: EvidencePack): AsyncGenerator<Uint8Array> {
  const out: Uint8Array[] = [];
  const zip = new Zip((error, chunk) => {
    if (error) throw error;
    out.push(chunk);
  });
  try {
    for (const name of pack.files) {
      const entry = new ZipPassThrough(name);
      zip.add(entry);
      if (name === "events.jsonl") {
        for await (const chunk of createReadStream(path.join(pack.dir, name))) {
          entry.push(chunk as Uint8Array);
          yield* out.splice(0);
        }
        entry.push(new Uint8Array(0), true);
      } else {
        entry.push(await readFile(path.join(pack.dir, name)), true);
      }
      yield* out.splice(0);
    }
    zip.end();
    yield* out.splice(0);
  } finally {
    await rm(pack.dir, { recursive: true, force: true });
  }
}
