import { APPEND_ONLY_TABLES } from "@/lib/db/append-only-tables";
import { canDisableAuditTriggers } from "@/lib/db/statements/audit/can-disable-audit-triggers";
import type { Queryable } from "@/lib/db/sql";

/** Printed once at start when the console or a worker connects as the tables' owner (a legacy single-role set-up). */
export const OWNER_CONNECTION_WARNING =
  "DATABASE_URL connects as the owner of the tables (or a superuser), so the audit tables' append-only triggers are no guarantee: it could switch them off. " +
  "Create an app role with scripts/db-roles.sql, then set DATABASE_OWNER_URL to the owner and DATABASE_URL to the app role (README, Configuration).";

/** The warning when this connection could switch the audit tables' triggers off, else null. */
export async function ownerConnectionWarning(q: Queryable): Promise<string | null> {
  return (await canDisableAuditTriggers(q, { tables: APPEND_ONLY_TABLES })) ? OWNER_CONNECTION_WARNING : null;
}
