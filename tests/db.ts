import { randomBytes } from "node:crypto";
import { Client } from "pg";
import { createDb, type Db } from "@/lib/db/client";
import { readEnv } from "@/lib/env";

export type TestDatabase = {
  /** As the app role, with only the rights the console has (lib/db/grant-app-role.ts). */
  db: Db;
  url: string;
  /**
   * As the tables' owner (a superuser on the bundled cluster): for tests that tamper with data
   * behind the app's back, as only an owner or superuser could.
   */
  ownerDb: Db;
  ownerUrl: string;
  drop: () => Promise<void>;
};

/** A fresh database cloned from the migrated template (see tests/global-setup.ts). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = readEnv("COUNTERSIGN_TEST_PG");
  const appUrl = readEnv("COUNTERSIGN_TEST_PG_APP");
  if (!adminUrl || !appUrl) throw new Error("COUNTERSIGN_TEST_PG is not set: run tests through vitest (global setup)");
  const name = `t_${randomBytes(6).toString("hex")}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE countersign_template`);
  await admin.end();
  const inDatabase = (base: string) => {
    const url = new URL(base);
    url.pathname = `/${name}`;
    return url.toString();
  };
  const url = inDatabase(appUrl);
  const ownerUrl = inDatabase(adminUrl);
  const db = createDb(url, { max: 80 });
  const ownerDb = createDb(ownerUrl, { max: 4 });
  return {
    db,
    url,
    ownerDb,
    ownerUrl,
    drop: async () => {
      await Promise.all([db.$disconnect(), ownerDb.$disconnect()]);
      const a = new Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}
