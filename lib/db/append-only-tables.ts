/**
 * The audit-side tables the verifier reads, which the app role may only read and append to
 * (SELECT and INSERT, grant-app-role.ts): no UPDATE, DELETE, TRUNCATE or trigger switch-off. A name
 * may be listed before the migration that adds it has run: the grant step skips missing tables.
 */
export const APPEND_ONLY_TABLES = ["AuditEvent", "AuditSeal", "AuditQuarantine", "AuditCheckpoint", "AuditVerification"] as const;

export type AppendOnlyTable = (typeof APPEND_ONLY_TABLES)[number];
