import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { notUrgently, sqlQuery, sqlTransaction, urgently } from "@/lib/db/sql";
import { Prisma } from "@/lib/generated/prisma/client";
import { createTestDatabase, type TestDatabase } from "@/tests/db";

let database: TestDatabase;
/** One connection, so every statement but the first waits for it. */
let single: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  single = createDb(database.url, { max: 1 });
});

afterAll(async () => {
  await single.$disconnect();
  await database.drop();
});

/** Occupies the only connection for a moment, so the statements started next all queue. */
const holdConnection = () => sqlQuery(single, Prisma.sql`SELECT pg_sleep(0.2)`);

describe("connection priority", () => {
  it("gives the connection to urgent statements ahead of ordinary ones that queued first", async () => {
    const order: string[] = [];
    const run = (label: string) => sqlQuery(single, Prisma.sql`SELECT 1`).then(() => void order.push(label));
    const held = holdConnection();
    const queued = [run("ordinary 1"), urgently(() => run("urgent")), run("ordinary 2")];
    await Promise.all([held, ...queued]);
    expect(order).toEqual(["urgent", "ordinary 1", "ordinary 2"]);
  });

  it("keeps ordinary order among urgent waiters too, and queues bookkeeping spawned by urgent work as ordinary", async () => {
    const order: string[] = [];
    const run = (label: string) => sqlQuery(single, Prisma.sql`SELECT 1`).then(() => void order.push(label));
    const held = holdConnection();
    const queued = [
      run("ordinary"),
      urgently(async () => {
        const bookkeeping = notUrgently(() => run("bookkeeping"));
        await Promise.all([run("urgent 1"), run("urgent 2"), bookkeeping]);
      }),
    ];
    await Promise.all([held, ...queued]);
    expect(order).toEqual(["urgent 1", "urgent 2", "ordinary", "bookkeeping"]);
  });

  it("frees the connection after a failed statement and after a transaction, whichever way it ended", async () => {
    await expect(sqlQuery(single, Prisma.sql`SELECT 1/0`)).rejects.toThrow(/division by zero/);
    await expect(
      sqlTransaction(single, async (tx) => {
        await tx.query(Prisma.sql`SELECT 1`);
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    const [row] = await sqlQuery<{ ok: number }>(single, Prisma.sql`SELECT 1 AS ok`);
    expect(row.ok).toBe(1);
  });
});
