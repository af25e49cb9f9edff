import path from "node:path";

/**
 * The command that runs the built console on `port` (scripts/console-server.ts), for everything
 * that starts it: `npm start`, the e2e server, bench:api. `nodeOptions` go to node before the
 * script (e.g. --cpu-prof).
 */
export function consoleServerCommand({ root, port, hostname, nodeOptions = [] }: { root: string; port: number; hostname?: string; nodeOptions?: string[] }): { command: string; args: string[] } {
  return {
    command: process.execPath,
    args: [
      ...nodeOptions,
      "--import", "tsx",
      path.join(root, "scripts/console-server.ts"),
      "--port", String(port),
      ...(hostname ? ["--hostname", hostname] : []),
    ],
  };
}
