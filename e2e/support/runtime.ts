import { readFileSync } from "node:fs";
import { createDb, type Db } from "@/lib/db/client";
import { RUNTIME_FILE } from "@/e2e/support/config";

let db: Db | undefined;

/** The database of the app under test, for seeding each test's own tenant. */
export function e2eDb(): Db {
  if (!db) {
    const { databaseUrl } = JSON.parse(readFileSync(RUNTIME_FILE, "utf8")) as { databaseUrl: string };
    db = createDb(databaseUrl, { max: 4 });
  }
  return db;
}
