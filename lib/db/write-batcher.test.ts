import { describe, expect, it } from "vitest";
import { createWriteBatcher } from "@/lib/db/write-batcher";

/** A fake statement: records each batch, answers when `release` is called. */
function fakeStatement(fail: (row: number) => boolean = () => false) {
  const batches: number[][] = [];
  const pending: Array<() => void> = [];
  const send = (rows: number[]) => {
    batches.push(rows);
    return new Promise<number[]>((resolve, reject) => {
      pending.push(() => {
        const bad = rows.find(fail);
        if (bad !== undefined) reject(new Error(`row ${bad} is refused`));
        else resolve(rows.map((row) => row * 10));
      });
    });
  };
  const settle = async () => {
    while (pending.length > 0) {
      pending.shift()!();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  };
  return { batches, send, settle };
}

describe("write batcher", () => {
  it("sends a lone write at once and gives each caller its own result", async () => {
    const statement = fakeStatement();
    const batcher = createWriteBatcher(statement.send, { maxInFlight: 1, maxRows: 10 });
    const result = batcher.write(7);
    await Promise.resolve();
    expect(statement.batches).toEqual([[7]]);
    await statement.settle();
    expect(await result).toBe(70);
  });

  it("groups the writes that arrive while a batch is on its way, up to the row limit", async () => {
    const statement = fakeStatement();
    const batcher = createWriteBatcher(statement.send, { maxInFlight: 1, maxRows: 3 });
    const first = batcher.write(1);
    await Promise.resolve();
    const later = [2, 3, 4, 5].map((row) => batcher.write(row));
    await Promise.resolve();
    expect(statement.batches).toEqual([[1]]); // the others wait: one batch in flight
    await statement.settle();
    expect(statement.batches).toEqual([[1], [2, 3, 4], [5]]);
    expect(await Promise.all([first, ...later])).toEqual([10, 20, 30, 40, 50]);
  });

  it("keeps at most maxInFlight batches on their way", async () => {
    const statement = fakeStatement();
    const batcher = createWriteBatcher(statement.send, { maxInFlight: 2, maxRows: 10 });
    const writes = [batcher.write(1)];
    await Promise.resolve();
    writes.push(batcher.write(2));
    await Promise.resolve();
    writes.push(batcher.write(3), batcher.write(4));
    await Promise.resolve();
    expect(statement.batches).toEqual([[1], [2]]);
    await statement.settle();
    expect(statement.batches).toEqual([[1], [2], [3, 4]]);
    expect(await Promise.all(writes)).toEqual([10, 20, 30, 40]);
  });

  it("when a batch fails, sends its rows again one by one: only the bad row fails, with its own error", async () => {
    const statement = fakeStatement((row) => row === 3);
    const batcher = createWriteBatcher(statement.send, { maxInFlight: 1, maxRows: 10 });
    const first = batcher.write(1);
    await Promise.resolve();
    const grouped = [2, 3, 4].map((row) => batcher.write(row).then((value) => ({ value }), (error: Error) => ({ error: error.message })));
    await statement.settle();
    expect(await first).toBe(10);
    expect(await Promise.all(grouped)).toEqual([{ value: 20 }, { error: "row 3 is refused" }, { value: 40 }]);
    expect(statement.batches).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  });

  it("refuses a batch whose statement answers for the wrong number of rows", async () => {
    const batches: number[][] = [];
    const batcher = createWriteBatcher(
      async (rows: number[]) => {
        batches.push(rows);
        return rows.length > 1 ? [1] : [rows[0] * 10];
      },
      { maxInFlight: 1, maxRows: 10 },
    );
    // Written in the same tick: one batch of two, answered with one result, so each goes again alone.
    expect(await Promise.all([batcher.write(1), batcher.write(2)])).toEqual([10, 20]);
    expect(batches).toEqual([[1, 2], [1], [2]]);
  });
});
