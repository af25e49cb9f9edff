import { notUrgently } from "@/lib/scheduling/urgency";

/**
 * Group commit for one kind of write: rows submitted while earlier batches are on their way go out
 * together as one statement, as PostgreSQL groups concurrent commits' WAL flushes; a lone write goes
 * at once. `send` writes a batch and returns one result per row, in order; if it throws, each row
 * is sent again alone, so a failing row fails with its own error and the others are written.
 */
export type WriteBatcher<Row, Result> = { write(row: Row): Promise<Result> };

type Waiting<Row, Result> = { row: Row; resolve: (result: Result) => void; reject: (error: unknown) => void };

export function createWriteBatcher<Row, Result>(
  send: (rows: Row[]) => Promise<Result[]>,
  options: { maxInFlight: number; maxRows: number },
): WriteBatcher<Row, Result> {
  const queue: Array<Waiting<Row, Result>> = [];
  let inFlight = 0;
  let scheduled = false;

  const sendAlone = (item: Waiting<Row, Result>) =>
    send([item.row]).then(([result]) => item.resolve(result), item.reject);

  async function run(batch: Array<Waiting<Row, Result>>): Promise<void> {
    try {
      const results = await send(batch.map((item) => item.row));
      if (results.length !== batch.length) throw new Error(`A batch of ${batch.length} rows returned ${results.length} results.`);
      batch.forEach((item, i) => item.resolve(results[i]));
    } catch (error) {
      if (batch.length === 1) batch[0].reject(error);
      else await Promise.all(batch.map(sendAlone));
    }
  }

  function pump(): void {
    while (inFlight < options.maxInFlight && queue.length > 0) {
      const batch = queue.splice(0, options.maxRows);
      inFlight++;
      // A batch serves many callers: it runs at ordinary priority, whoever started it (sql.ts).
      void notUrgently(() => run(batch)).finally(() => {
        inFlight--;
        pump();
      });
    }
  }

  return {
    write(row) {
      return new Promise<Result>((resolve, reject) => {
        queue.push({ row, resolve, reject });
        // Rows written in the same tick share a statement even when a batch could start at once.
        if (!scheduled) {
          scheduled = true;
          queueMicrotask(() => {
            scheduled = false;
            pump();
          });
        }
      });
    },
  };
}
