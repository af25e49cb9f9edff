import { randomBytes } from "node:crypto";
import { Client } from "pg";
import { createDb, type Db } from "@/lib/db/client";
import { readEnv } from "@/lib/env";

export type TestDatabase = { db: Db; url: string; drop: () => Promise<void> };

/** A fresh database cloned from the migrated template (see tests/global-setup.ts). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = readEnv("COUNTERSIGN_TEST_PG");
  if (!adminUrl) throw new Error("COUNTERSIGN_TEST_PG is not set: run tests through vitest (global setup)");
  const name = `t_${randomBytes(6).toString("hex")}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE countersign_template`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = createDb(url.toString(), { max: 80 });
  return {
    db,
    url: url.toString(),
    drop: async () => {
      await db.$disconnect();
      const a = new Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}
