import pg from "pg";

type Query = (this: pg.Client, ...args: unknown[]) => unknown;

/**
 * Every statement (BEGIN and COMMIT included) that pg clients of database `name` send while `fn`
 * runs, in order, each shortened to one line: one round trip each (node-postgres sends one at a time).
 */
export async function statementsOf(name: string, fn: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const prototype = pg.Client.prototype as unknown as { query: Query };
  const original = prototype.query;
  prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string } | undefined;
    if (this.database === name) sent.push((typeof config === "string" ? config : (config?.text ?? "")).replace(/\s+/g, " ").trim().slice(0, 120));
    return original.apply(this, args);
  };
  try {
    await fn();
  } finally {
    prototype.query = original;
  }
  return sent;
}

/** The database name of a connection string. */
export const databaseOf = (url: string) => new URL(url).pathname.slice(1);
