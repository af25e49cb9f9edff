import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpTestDatabase } from "@/tests/fixtures";
import { createDb, type Db } from "@/lib/db/client";
import { query, sqlQuery, sqlTransaction } from "@/lib/db/sql";
import { notUrgently, urgently } from "@/lib/scheduling/urgency";
import { Prisma } from "@/lib/generated/prisma/client";

const database = setUpTestDatabase();
/** One connection, so every statement but the first waits for it. */
let single: Db;

beforeAll(async () => {
  single = createDb(database.url, { max: 1 });
});

afterAll(async () => {
  await single.$disconnect();
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

describe("prepared statements", () => {
  /** The texts prepared on the only connection of `single`. */
  const prepared = async () =>
    (await sqlQuery<{ statement: string }>(single, Prisma.sql`SELECT statement FROM pg_prepared_statements`)).map((row) => row.statement);

  it("names a statement once per connection, unless it asks to be planned for each call's values", async () => {
    await query(single, Prisma.sql`SELECT ${1}::int AS named_statement`);
    await query(single, Prisma.sql`SELECT ${2}::int AS unnamed_statement`, { prepare: false });
    await sqlTransaction(single, async (tx) => {
      await tx.query(Prisma.sql`SELECT ${3}::int AS named_in_transaction`);
      await tx.query(Prisma.sql`SELECT ${4}::int AS unnamed_in_transaction`, { prepare: false });
    });
    const texts = (await prepared()).join("\n");
    expect(texts).toContain("named_statement");
    expect(texts).toContain("named_in_transaction");
    expect(texts).not.toContain("unnamed_statement");
    expect(texts).not.toContain("unnamed_in_transaction");
  });
});
