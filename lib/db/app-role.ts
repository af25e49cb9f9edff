import type { Client } from "pg";
import { scramSha256Verifier } from "@/lib/db/scram-verifier";

/**
 * The console's two database roles: the owner owns the tables (migrations and the grant step run
 * as it); the app role, which the console, workers and tests connect as, owns nothing and holds
 * only the rights grant-app-role.ts gives, so it cannot switch the audit tables' triggers off.
 */

/** The app role of the bundled PostgreSQL (lib/db/embedded-postgres.ts). */
export const BUNDLED_APP_ROLE = "countersign_app";

/** The role a postgresql:// URL connects as, or null when it names none. */
export function roleOfUrl(url: string): string | null {
  return decodeURIComponent(new URL(url).username) || null;
}

/** The same server and database as `url`, as another role. */
export function urlAsRole(url: string, role: string, password: string): string {
  const parsed = new URL(url);
  parsed.username = encodeURIComponent(role);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

/**
 * Creates the app's login role, or brings an existing one back to LOGIN and nothing more (no
 * superuser, CREATEROLE, CREATEDB, REPLICATION or BYPASSRLS). Run by a superuser. The password goes
 * over as a SCRAM verifier, never as itself (scram-verifier.ts).
 */
export async function ensureAppLoginRole(admin: Client, role: string, password: string): Promise<void> {
  const name = admin.escapeIdentifier(role);
  const { rowCount } = await admin.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [role]);
  if (!rowCount) {
    try {
      await admin.query(`CREATE ROLE ${name}`);
    } catch (error) {
      // Created meanwhile by another process starting on the same cluster.
      if ((error as { code?: string }).code !== "42710") throw error;
    }
  }
  const verifier = admin.escapeLiteral(scramSha256Verifier(password));
  await admin.query(`ALTER ROLE ${name} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${verifier}`);
}
