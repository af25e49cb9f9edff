/**
 * The tables the console may only read and append to: every audit-side table the verifier reads —
 * the events, their leaves in each tenant's tree, quarantined forgeries, signed checkpoints and
 * verification results. The app role gets SELECT and INSERT on these and nothing else
 * (lib/db/grant-app-role.ts), so neither an UPDATE, DELETE or TRUNCATE nor switching their
 * append-only triggers off is open to it; every other table in schema public is ordinary. Names
 * of tables a later migration adds may be listed before it has run: the grant step skips names
 * that do not exist yet.
 */
export const APPEND_ONLY_TABLES = ["AuditEvent", "AuditSeal", "AuditQuarantine", "AuditCheckpoint", "AuditVerification"] as const;

export type AppendOnlyTable = (typeof APPEND_ONLY_TABLES)[number];
