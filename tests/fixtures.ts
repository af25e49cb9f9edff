import { afterAll, beforeAll } from "vitest";
import { getDb, type Db } from "@/lib/db/client";
import { createTestDatabase, type TestDatabase } from "@/tests/db";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import type { Policy } from "@/lib/policy/policy-document";

// The objects these return are filled in by beforeAll hooks, so a test reads `t.db` or `a.id` as it
// would a variable assigned there. Hooks run in the order registered, so call setUpTestDatabase first.

/**
 * This file's database: created before its tests, dropped after them. `appClient`: the code under
 * test uses the app's own client (route handlers, next-auth callbacks), so point it at this
 * database and disconnect it before the drop.
 */
export function setUpTestDatabase(options: { appClient?: boolean } = {}): TestDatabase {
  const t = {} as TestDatabase;
  beforeAll(async () => {
    Object.assign(t, await createTestDatabase());
    if (options.appClient) process.env.DATABASE_URL = t.url;
  });
  afterAll(async () => {
    if (options.appClient) await getDb().$disconnect();
    await t.drop?.();
  });
  return t;
}

/** A tenant of its own (createTestTenant), made before the file's tests. */
export function setUpTestTenant(t: { db: Db }, options: { policy?: Policy } = {}): TestTenant {
  const tenant = {} as TestTenant;
  beforeAll(async () => {
    Object.assign(tenant, await createTestTenant(t.db, options));
  });
  return tenant;
}
