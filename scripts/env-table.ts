/**
 * `npm run env:table`: prints the README's configuration table from lib/env.ts; with `--write`,
 * replaces the table between the README's env-table markers.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { configurationTable } from "@/lib/env";

const table = configurationTable();
if (!process.argv.includes("--write")) {
  console.log(table);
} else {
  const file = path.join(process.cwd(), "README.md");
  const readme = readFileSync(file, "utf8");
  const start = "<!-- env-table:start -->";
  const end = "<!-- env-table:end -->";
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) {
    console.error(`✖ README.md has no ${start} … ${end} markers to write the table between.`);
    process.exit(1);
  }
  writeFileSync(file, `${readme.slice(0, from + start.length)}\n${table}\n${readme.slice(to)}`);
  console.log("README.md's configuration table is up to date.");
}
