/**
 * Runs the built console (`npm run build`) on its own HTTP server (lib/server/console-server.ts):
 *
 *   node --import tsx scripts/console-server.ts --port 3000 [--hostname 127.0.0.1]
 *
 * What `npm start`, the e2e server and bench:api start (lib/server/console-command.ts), in place of
 * `next start`. Stops on SIGTERM or SIGINT once requests in flight are answered (at most 5 s).
 */
import { parseArgs } from "node:util";

// As under `next start`: no source maps. tsx (which runs this file) turns them on, and with them
// Node reads the source map of every chunk Next.js loads and maps every stack trace it formats.
process.setSourceMapsEnabled(false);

const { values } = parseArgs({ options: { port: { type: "string" }, hostname: { type: "string" } } });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 1 || port > 65_535) {
  console.error("✖ Usage: node --import tsx scripts/console-server.ts --port PORT [--hostname HOST]");
  process.exit(2);
}
// As `next start` does: the built console runs as production unless told otherwise.
(process.env as Record<string, string | undefined>).NODE_ENV ??= "production";

const { startConsoleServer } = await import("@/lib/server/console-server");
const server = await startConsoleServer({ dir: process.cwd(), port, hostname: values.hostname }).catch((error: unknown) => {
  const code = (error as NodeJS.ErrnoException).code;
  console.error(code === "EADDRINUSE" ? `✖ Port ${port} is in use: stop what uses it, or set PORT to another.` : `✖ The console did not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
console.log(`▲ Console ready on ${server.url}`);

for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130]] as const) {
  process.once(signal, () => void server.stop().finally(() => process.exit(code)));
}
