import { Client } from "pg";
import { APPEND_ONLY_TABLES } from "@/lib/db/append-only-tables";

/**
 * The grant step, run as the owner after every `prisma migrate deploy`: the app role gets exactly
 * the rights below on every table and sequence in schema public, loses anything else and CREATE on
 * the schema (as does PUBLIC). Idempotent; concurrent runs queue on an advisory lock. Built here,
 * not in lib/db/statements/: role and grant DDL names its objects (quoted by pg).
 */

export type TablePrivilege = "SELECT" | "INSERT" | "UPDATE" | "DELETE";

/** Prisma's own bookkeeping: for migrations alone. */
const MIGRATIONS_TABLE = "_prisma_migrations";

/** What the app role may do to a table in schema public. */
export function tableRightsFor(table: string): readonly TablePrivilege[] {
  if (table === MIGRATIONS_TABLE) return [];
  if ((APPEND_ONLY_TABLES as readonly string[]).includes(table)) return ["SELECT", "INSERT"];
  return ["SELECT", "INSERT", "UPDATE", "DELETE"];
}

/** On every sequence in schema public: nextval() and reading it, not setval(). */
export const SEQUENCE_RIGHTS = ["USAGE", "SELECT"] as const;

/** An expected reason the grant step cannot run, in one line that says what to do. */
export class AppRoleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AppRoleError";
  }
}

type Standing = {
  is_owner: boolean;
  rolsuper: boolean;
  rolcreaterole: boolean;
  rolcreatedb: boolean;
  rolreplication: boolean;
  rolbypassrls: boolean;
  owned: string | null;
  owns_schema: boolean;
  owns_database: boolean;
};

/** Why `role` cannot be the app role, in one line, or null when it can. */
export function appRoleProblem(role: string, standing: Standing | undefined): string | null {
  const fix = "scripts/db-roles.sql sets one up (README, Configuration)";
  if (!standing) return `The app role "${role}" (the user in DATABASE_URL) does not exist: create it with scripts/db-roles.sql (README, Configuration), or fix DATABASE_URL.`;
  if (standing.is_owner) {
    return `DATABASE_URL and DATABASE_OWNER_URL both connect as "${role}": DATABASE_URL must name a separate app role that owns nothing; ${fix}.`;
  }
  const attributes = [
    standing.rolsuper && "SUPERUSER",
    standing.rolcreaterole && "CREATEROLE",
    standing.rolcreatedb && "CREATEDB",
    standing.rolreplication && "REPLICATION",
    standing.rolbypassrls && "BYPASSRLS",
  ].filter((a): a is string => Boolean(a));
  if (attributes.length > 0) {
    return `The app role "${role}" in DATABASE_URL has ${attributes.join(", ")}, which would let it around the audit tables' protection: take it away (ALTER ROLE "${role}" ${attributes.map((a) => `NO${a}`).join(" ")}) and start again.`;
  }
  const owns = [
    standing.owns_database && "the database",
    standing.owns_schema && "schema public",
    standing.owned && `table(s) ${standing.owned}`,
  ].filter((a): a is string => Boolean(a));
  if (owns.length > 0) {
    return `The app role "${role}" in DATABASE_URL owns (itself or through a role it belongs to) ${owns.join(", ")}, so it could alter or drop the audit tables: give them to the owner role in DATABASE_OWNER_URL (ALTER … OWNER TO …) or revoke that membership, and start again.`;
  }
  return null;
}

/** Applies the app role's rights; `ownerUrl` connects as the tables' owner. Throws AppRoleError in one line. */
export async function grantAppRole(ownerUrl: string, appRole: string): Promise<void> {
  const owner = new Client({ connectionString: ownerUrl });
  await owner.connect();
  try {
    const { rows } = await owner.query<Standing>(
      `SELECT r.rolname = current_user AS is_owner, r.rolsuper, r.rolcreaterole, r.rolcreatedb, r.rolreplication, r.rolbypassrls,
         (SELECT string_agg(c.relname, ', ' ORDER BY c.relname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') AND pg_has_role(r.oid, c.relowner, 'MEMBER')) AS owned,
         (SELECT pg_has_role(r.oid, n.nspowner, 'MEMBER') FROM pg_namespace n WHERE n.nspname = 'public') AS owns_schema,
         (SELECT pg_has_role(r.oid, d.datdba, 'MEMBER') FROM pg_database d WHERE d.datname = current_database()) AS owns_database
       FROM pg_roles r WHERE r.rolname = $1`,
      [appRole],
    );
    const problem = appRoleProblem(appRole, rows[0]);
    if (problem) throw new AppRoleError(problem);

    const app = owner.escapeIdentifier(appRole);
    await owner.query("BEGIN");
    try {
      await owner.query("SELECT pg_advisory_xact_lock(hashtext('countersign.grant-app-role'))");
      await owner.query("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
      await owner.query(`REVOKE ALL ON SCHEMA public FROM ${app}`);
      await owner.query(`GRANT USAGE ON SCHEMA public TO ${app}`);
      const relations = await owner.query<{ relname: string; relkind: string }>(
        `SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') ORDER BY c.relname`,
      );
      for (const { relname, relkind } of relations.rows) {
        const target = `${relkind === "S" ? "SEQUENCE" : "TABLE"} ${owner.escapeIdentifier(relname)}`;
        // Rights held by PUBLIC are held by the app role too.
        await owner.query(`REVOKE ALL ON ${target} FROM PUBLIC, ${app}`);
        const rights = relkind === "S" ? SEQUENCE_RIGHTS : tableRightsFor(relname);
        if (rights.length > 0) await owner.query(`GRANT ${rights.join(", ")} ON ${target} TO ${app}`);
      }
      await owner.query("COMMIT");
    } catch (error) {
      await owner.query("ROLLBACK").catch(() => {});
      throw new AppRoleError(
        `Could not grant the app role "${appRole}" its rights (${(error as Error).message}): run migrations as the tables' owner (DATABASE_OWNER_URL).`,
      );
    }
  } finally {
    await owner.end();
  }
}
