/**
 * The tables the console may only read and append to: the audit log and its sealed chain. The app
 * role gets SELECT and INSERT on these and nothing else (lib/db/grant-app-role.ts), so neither an
 * UPDATE, DELETE or TRUNCATE nor switching their append-only triggers off is open to it; every
 * other table in schema public is ordinary. Names of tables a later migration adds may be listed
 * before it has run: the grant step skips names that do not exist yet. AuditUnsealed (the queue
 * of events to seal) and AuditHead (each tenant's chain head) are updated and cleared by the
 * sealer, so they are ordinary tables.
 */
export const APPEND_ONLY_TABLES = ["AuditEvent", "AuditSeal"] as const;

export type AppendOnlyTable = (typeof APPEND_ONLY_TABLES)[number];
