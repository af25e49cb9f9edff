import { Client, DatabaseError } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { sealAuditChain } from "@/lib/audit/seal-audit-chain";
import { checkpointAuditLog } from "@/lib/audit/checkpoint-audit-log";
import { roleOfUrl } from "@/lib/db/app-role";
import { APPEND_ONLY_TABLES } from "@/lib/db/append-only-tables";
import { appRoleProblem, AppRoleError, grantAppRole, tableRightsFor } from "@/lib/db/grant-app-role";
import { ownerConnectionWarning } from "@/lib/db/owner-connection-warning";

/**
 * The console's database role, as the tests and the console connect: what it may do, and what it
 * may not, whatever a bug or an attacker in the app asks of the database.
 */
const t = setUpTestDatabase();
const a = setUpTestTenant(t);
let app: Client;
let owner: Client;
let appRole: string;

beforeAll(async () => {
  appRole = roleOfUrl(t.url) ?? "";
  app = new Client({ connectionString: t.url });
  owner = new Client({ connectionString: t.ownerUrl });
  await Promise.all([app.connect(), owner.connect()]);
  // Rows in every append-only table, written as the app role, through the code that writes them.
  await t.db.$transaction((tx) =>
    appendAuditEvent(tx, { tenantId: a.id, actor: { type: "system", label: "test" }, type: "task.started", outcome: "ok", subject: { type: "task" }, data: { planner: "test", instructionLength: 1 } }),
  );
  // A row a database writer inserts without the console's key: sealing quarantines it.
  await app.query(`INSERT INTO "AuditEvent" ("tenantId", uid, mac, "actorType", "actorLabel", type, outcome, "subjectType", data)
    VALUES ($1, gen_random_uuid(), NULL, 'user', 'forger', 'decision.recorded', 'ok', 'action', '{}')`, [a.id]);
  await sealAuditChain(t.db, a.id);
  // A signed checkpoint, and the verification it rests on.
  await checkpointAuditLog(t.db, a.id);
});
afterAll(async () => {
  await Promise.all([app?.end(), owner?.end()]);
});

/** The error PostgreSQL answered `sql` with, as the app role. */
async function refusal(sql: string, client: Client = app): Promise<DatabaseError> {
  const savepoint = `s_${Math.random().toString(36).slice(2)}`;
  // Inside a transaction that is rolled back: were a statement allowed, it would leave no trace.
  await client.query("BEGIN");
  try {
    await client.query(`SAVEPOINT ${savepoint}`);
    await client.query(sql);
  } catch (error) {
    if (error instanceof DatabaseError) return error;
    throw error;
  } finally {
    await client.query("ROLLBACK");
  }
  throw new Error(`${sql} was allowed`);
}

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function privileges(table: string): Promise<Record<string, boolean>> {
  const kinds = ["SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"];
  const { rows } = await app.query<{ kind: string; held: boolean }>(
    "SELECT kind, has_table_privilege(current_user, format('public.%I', $1::text), kind) AS held FROM unnest($2::text[]) AS kind",
    [table, kinds],
  );
  return Object.fromEntries(rows.map((row) => [row.kind, row.held]));
}

describe("the app role", () => {
  it("is a plain login: not the owner, no superuser, no CREATEROLE, CREATEDB or BYPASSRLS, owns nothing", async () => {
    const { rows } = await app.query(
      `SELECT current_user AS role, rolsuper, rolcreaterole, rolcreatedb, rolbypassrls, rolreplication,
              (SELECT count(*)::int FROM pg_class c WHERE pg_has_role(current_user, c.relowner, 'MEMBER')) AS owned
         FROM pg_roles WHERE rolname = current_user`,
    );
    expect(rows).toEqual([{ role: appRole, rolsuper: false, rolcreaterole: false, rolcreatedb: false, rolbypassrls: false, rolreplication: false, owned: 0 }]);
    expect(roleOfUrl(t.ownerUrl)).not.toBe(appRole);
  });

  describe.each(APPEND_ONLY_TABLES)("on the append-only table %s", (table) => {
    it("exists and has rows the app role wrote", async () => {
      const { rows } = await app.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${q(table)}`);
      expect(rows[0]?.n).toBeGreaterThan(0);
    });

    it("holds SELECT and INSERT and nothing else", async () => {
      expect(await privileges(table)).toEqual({ SELECT: true, INSERT: true, UPDATE: false, DELETE: false, TRUNCATE: false, REFERENCES: false, TRIGGER: false });
    });

    it("is refused UPDATE, DELETE and TRUNCATE by its rights, before any trigger", async () => {
      const { rows } = await app.query<{ column: string }>(
        "SELECT column_name AS column FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position LIMIT 1",
        [table],
      );
      const column = q(rows[0]?.column ?? "id");
      for (const sql of [`UPDATE ${q(table)} SET ${column} = ${column}`, `DELETE FROM ${q(table)}`, `TRUNCATE ${q(table)}`, `TRUNCATE ${q(table)} CASCADE`]) {
        const error = await refusal(sql);
        expect(error.code, sql).toBe("42501");
        // The append-only triggers refuse with the same code: the message tells the two apart.
        expect(error.message, sql).toBe(`permission denied for table ${table}`);
      }
    });

    it("cannot switch its triggers off, all at once or one by one, nor drop or alter it", async () => {
      const { rows: triggers } = await owner.query<{ name: string }>(
        "SELECT tgname AS name FROM pg_trigger WHERE tgrelid = format('public.%I', $1::text)::regclass AND NOT tgisinternal",
        [table],
      );
      expect(triggers.length, `${table} has no append-only trigger`).toBeGreaterThan(0);
      const statements = [
        `ALTER TABLE ${q(table)} DISABLE TRIGGER ALL`,
        `ALTER TABLE ${q(table)} DISABLE TRIGGER USER`,
        ...triggers.map(({ name }) => `ALTER TABLE ${q(table)} DISABLE TRIGGER ${q(name)}`),
        `ALTER TABLE ${q(table)} OWNER TO ${q(appRole)}`,
        `DROP TABLE ${q(table)}`,
        `DROP TABLE ${q(table)} CASCADE`,
      ];
      for (const sql of statements) {
        const error = await refusal(sql);
        expect(error.code, sql).toBe("42501");
        expect(error.message, sql).toBe(`must be owner of table ${table}`);
      }
      for (const { name } of triggers) {
        const error = await refusal(`DROP TRIGGER ${q(name)} ON ${q(table)}`);
        expect(error.code).toBe("42501");
        expect(error.message).toBe(`must be owner of relation ${table}`);
      }
    });
  });

  it("cannot skip triggers with session_replication_role, for its session or its transaction", async () => {
    for (const sql of ["SET session_replication_role = replica", "SET LOCAL session_replication_role = replica", "SELECT set_config('session_replication_role', 'replica', false)"]) {
      const error = await refusal(sql);
      expect(error.code, sql).toBe("42501");
      expect(error.message, sql).toBe(`permission denied to set parameter "session_replication_role"`);
    }
  });

  it("has no rights on _prisma_migrations", async () => {
    expect(Object.values(await privileges("_prisma_migrations")).some(Boolean)).toBe(false);
    expect((await refusal(`SELECT * FROM "_prisma_migrations"`)).message).toBe("permission denied for table _prisma_migrations");
    expect((await refusal(`DELETE FROM "_prisma_migrations"`)).code).toBe("42501");
  });

  it("cannot create objects in schema public", async () => {
    const error = await refusal(`CREATE TABLE "Shadow" (id int)`);
    expect(error.message).toBe("permission denied for schema public");
  });

  it("does the console's ordinary work: inserts, updates and deletes tenant-scoped rows, and seals", async () => {
    const tenant = await t.db.tenant.create({ data: { slug: `ordinary-${Date.now()}`, name: "Ordinary", domains: [] } });
    const customer = await t.db.customer.findFirstOrThrow({ where: { tenantId: a.id } });
    await t.db.customer.update({ where: { id: customer.id }, data: { notes: "updated by the app role" } });
    expect((await t.db.customer.findUniqueOrThrow({ where: { id: customer.id } })).notes).toBe("updated by the app role");
    await t.db.tenant.update({ where: { id: tenant.id }, data: { name: "Renamed" } });
    expect(await privileges("Customer")).toEqual({ SELECT: true, INSERT: true, UPDATE: true, DELETE: true, TRUNCATE: false, REFERENCES: false, TRIGGER: false });
    // Sealing, as the app role, put the genuine event in the tree and only the forgery in quarantine.
    expect(await t.db.auditSeal.count({ where: { tenantId: a.id } })).toBe(1);
    expect(await t.db.auditQuarantine.count({ where: { tenantId: a.id } })).toBe(1);
  });

  it("may LISTEN", async () => {
    await expect(app.query("LISTEN countersign_api_keys")).resolves.toBeDefined();
    await app.query("UNLISTEN *");
  });

  it("is not warned about at start; the owner is", async () => {
    expect(await ownerConnectionWarning(t.db)).toBeNull();
    expect(await ownerConnectionWarning(t.ownerDb)).toMatch(/^DATABASE_URL connects as the owner of the tables .* scripts\/db-roles\.sql/);
  });
});

describe("the grant step", () => {
  it("defines the rights in one place: append-only tables read and append, _prisma_migrations nothing, the rest ordinary", () => {
    for (const table of APPEND_ONLY_TABLES) expect(tableRightsFor(table)).toEqual(["SELECT", "INSERT"]);
    expect(tableRightsFor("_prisma_migrations")).toEqual([]);
    expect(tableRightsFor("Action")).toEqual(["SELECT", "INSERT", "UPDATE", "DELETE"]);
  });

  it("is idempotent, covers tables added later, and takes back rights granted beyond it", async () => {
    await owner.query(`CREATE TABLE "AddedLater" (id serial PRIMARY KEY)`);
    await owner.query(`GRANT ALL ON "AuditEvent" TO ${q(appRole)}`);
    await owner.query(`GRANT UPDATE ON "AuditSeal" TO PUBLIC`);
    await owner.query(`GRANT CREATE ON SCHEMA public TO PUBLIC`);
    expect((await privileges("AuditEvent")).UPDATE).toBe(true);

    await grantAppRole(t.ownerUrl, appRole);
    await grantAppRole(t.ownerUrl, appRole);

    expect(await privileges("AddedLater")).toEqual({ SELECT: true, INSERT: true, UPDATE: true, DELETE: true, TRUNCATE: false, REFERENCES: false, TRIGGER: false });
    const sequence = await app.query("SELECT has_sequence_privilege(current_user, 'public.\"AddedLater_id_seq\"', 'USAGE') AS usage, has_sequence_privilege(current_user, 'public.\"AddedLater_id_seq\"', 'UPDATE') AS setval");
    expect(sequence.rows).toEqual([{ usage: true, setval: false }]);
    for (const table of APPEND_ONLY_TABLES) expect((await privileges(table)).UPDATE, table).toBe(false);
    expect((await refusal(`CREATE TABLE "Shadow" (id int)`)).message).toBe("permission denied for schema public");
  });

  it("refuses, in one line, an app role that is the owner, a superuser, or missing", async () => {
    const ownerRole = roleOfUrl(t.ownerUrl) ?? "";
    await expect(grantAppRole(t.ownerUrl, ownerRole)).rejects.toThrow(AppRoleError);
    await expect(grantAppRole(t.ownerUrl, ownerRole)).rejects.toThrow(/^DATABASE_URL and DATABASE_OWNER_URL both connect as "[^"]+": [^\n]*scripts\/db-roles\.sql/);
    await expect(grantAppRole(t.ownerUrl, "no_such_role")).rejects.toThrow(/^The app role "no_such_role" \(the user in DATABASE_URL\) does not exist: create it with scripts\/db-roles\.sql/);
    const standing = { is_owner: false, rolsuper: false, rolcreaterole: false, rolcreatedb: false, rolreplication: false, rolbypassrls: false, owned: null, owns_schema: false, owns_database: false };
    expect(appRoleProblem("x", standing)).toBeNull();
    expect(appRoleProblem("x", { ...standing, rolsuper: true, rolbypassrls: true })).toBe(
      `The app role "x" in DATABASE_URL has SUPERUSER, BYPASSRLS, which would let it around the audit tables' protection: take it away (ALTER ROLE "x" NOSUPERUSER NOBYPASSRLS) and start again.`,
    );
    expect(appRoleProblem("x", { ...standing, owned: "AuditEvent", owns_database: true })).toMatch(/^The app role "x" in DATABASE_URL owns \(itself or through a role it belongs to\) the database, table\(s\) AuditEvent, so it could alter or drop/);
  });
});
