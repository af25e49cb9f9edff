import type { AuditEventRow } from "@/lib/db/statements/audit/audit-event-filter";
import { AUDIT_CONTEXT_COLUMNS, type AuditExportContext } from "@/lib/audit/audit-export-context";

export const AUDIT_EXPORT_COLUMNS = [
  "id", "seq", "at", "actorType", "actorId", "actorLabel", "type", "outcome", "subjectType", "subjectId", "actionId",
  "tool", "verdict", "riskLevel", "reviewerId", "requester", "status", "data", "uid", "mac", "leafHash",
] as const satisfies ReadonlyArray<keyof AuditEventRow>;

/** The event as plain JSON (bigints as strings, times as ISO 8601). */
export function auditEventJson(row: AuditEventRow): Record<string, unknown> {
  return Object.fromEntries(
    AUDIT_EXPORT_COLUMNS.map((key) => {
      const value = row[key];
      return [key, typeof value === "bigint" ? value.toString() : value instanceof Date ? value.toISOString() : value ?? null];
    }),
  );
}

/**
 * One CSV cell (RFC 4180 quoting). A value a spreadsheet would read as a formula (starting with
 * = + - @, or a tab/carriage return) is prefixed with an apostrophe so it stays text.
 */
export function csvCell(value: unknown): string {
  let text = value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The event's own columns, then what an auditor reads beside it (audit-export-context.ts). */
export function csvHeader(): string {
  return `${[...AUDIT_EXPORT_COLUMNS, ...AUDIT_CONTEXT_COLUMNS].join(",")}\r\n`;
}

export function csvLine(row: AuditEventRow, context?: AuditExportContext): string {
  const json = auditEventJson(row);
  const own = AUDIT_EXPORT_COLUMNS.map((key) => csvCell(json[key]));
  const read = AUDIT_CONTEXT_COLUMNS.map((key) => csvCell(context?.[key] ?? null));
  return `${[...own, ...read].join(",")}\r\n`;
}

/** One event of the readable JSON export: its own columns and its context, one JSON value per line. */
export function readableJsonLine(row: AuditEventRow, context?: AuditExportContext): string {
  const read = Object.fromEntries(AUDIT_CONTEXT_COLUMNS.map((key) => [key, context?.[key] ?? null]));
  return `${JSON.stringify({ ...auditEventJson(row), ...read })}\n`;
}

export function jsonLine(row: AuditEventRow): string {
  return `${JSON.stringify(auditEventJson(row))}\n`;
}
