import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import path from "node:path";
import { readEnv } from "@/lib/env";
import type { AuditProblem } from "@/lib/db/audit-body";

/**
 * What the console remembers of its evidence outside the database, beside its signing key
 * (AUDIT_STATE_FILE; appended JSON lines, mode 0600), where a database writer cannot erase it:
 * `alarm` (a failed full walk, a refused checkpoint, a witness holding a longer or other history;
 * red on /audit), `resolved` (`npm run audit:resolve`), `legacy` (legacy-boundary.ts).
 */
export type AlarmSource = "full_walk" | "checkpoint" | "witness";
export type AuditAlarm = { log: string; at: string; source: AlarmSource; problems: AuditProblem[] };
type StateRecord =
  | ({ kind: "alarm" } & AuditAlarm)
  | { kind: "resolved"; log: string; at: string; note: string }
  | { kind: "legacy"; logKey: string; ceiling: string; count: string };

/** At most this many problems of one alarm are kept (a full walk names at most 20). */
const MAX_PROBLEMS = 20;

export function auditStateFile(): string {
  const keyFile = readEnv("AUDIT_SIGNING_KEY_FILE") ?? path.join(process.cwd(), ".data", "audit-signing-key");
  return readEnv("AUDIT_STATE_FILE") ?? path.join(path.dirname(keyFile), "audit-state.jsonl");
}

function readRecords(): StateRecord[] {
  let text: string;
  try {
    text = readFileSync(/*turbopackIgnore: true*/ auditStateFile(), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const records: StateRecord[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      records.push(JSON.parse(line) as StateRecord);
    } catch {
      // A line torn by a crash mid-append: never acted on, so nothing to remember.
    }
  }
  return records;
}

function append(record: StateRecord): void {
  const file = auditStateFile();
  mkdirSync(path.dirname(file), { recursive: true });
  // One write of one line with O_APPEND: lines of several processes never interleave; fsync before
  // anyone is told, as the witness does with its own state.
  const fd = openSync(/*turbopackIgnore: true*/ file, "a", 0o600);
  try {
    writeSync(fd, `${JSON.stringify(record)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The log's alarms not resolved since, oldest first. */
export function unresolvedAlarms(log: string): AuditAlarm[] {
  let open: AuditAlarm[] = [];
  for (const record of readRecords()) {
    if (record.kind === "legacy" || record.log !== log) continue;
    if (record.kind === "resolved") open = [];
    else open.push({ log: record.log, at: record.at, source: record.source, problems: record.problems });
  }
  return open;
}

/** Remembers a failure of the log's evidence, unless the newest open alarm already says the same. */
export function rememberAlarm(log: string, source: AlarmSource, problems: readonly AuditProblem[]): void {
  if (problems.length === 0) return;
  const last = unresolvedAlarms(log).at(-1);
  if (last && last.source === source && last.problems[0]?.message === problems[0].message) return;
  append({ kind: "alarm", log, at: new Date().toISOString(), source, problems: problems.slice(0, MAX_PROBLEMS) });
}

/** An operator's word that the log's alarms so far were looked into; returns how many it closed. */
export function resolveAlarms(log: string, note: string): number {
  const open = unresolvedAlarms(log).length;
  if (open > 0) append({ kind: "resolved", log, at: new Date().toISOString(), note });
  return open;
}

/** The legacy boundary held for this log key, or null before it was first read. */
export function heldLegacyBoundary(logKey: string): { ceiling: bigint; count: bigint } | null {
  const record = readRecords().find((r): r is Extract<StateRecord, { kind: "legacy" }> => r.kind === "legacy" && r.logKey === logKey);
  return record ? { ceiling: BigInt(record.ceiling), count: BigInt(record.count) } : null;
}

export function holdLegacyBoundary(logKey: string, boundary: { ceiling: bigint; count: bigint }): void {
  if (heldLegacyBoundary(logKey)) return;
  append({ kind: "legacy", logKey, ceiling: boundary.ceiling.toString(), count: boundary.count.toString() });
}
