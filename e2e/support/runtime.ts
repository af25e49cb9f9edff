import { readFileSync } from "node:fs";
import { createDb, type Db } from "@/lib/db/client";
import { RUNTIME_FILE } from "@/e2e/support/config";

type Runtime = { databaseUrl: string; ownerDatabaseUrl: string };

let db: Db | undefined;
let ownerDb: Db | undefined;

const runtime = () => JSON.parse(readFileSync(RUNTIME_FILE, "utf8")) as Runtime;

/** The database of the app under test, as the app role (as the console connects), for seeding each test's own tenant. */
export function e2eDb(): Db {
  db ??= createDb(runtime().databaseUrl, { max: 4 });
  return db;
}

/** The same database as the tables' owner: for tampering behind the app's back, as only an owner or superuser could. */
export function e2eOwnerDb(): Db {
  ownerDb ??= createDb(runtime().ownerDatabaseUrl, { max: 2 });
  return ownerDb;
}
