// One root filesystem for every runner: bubblewrap runs the sandbox image's own rootfs (the
// debootstrap tree scripts/build-sandbox-image.sh builds), extracted once to a directory named by
// the image's layer digest — the sha256 of that rootfs tarball, which `docker import` records as the
// image's only layer (`docker image inspect --format '{{index .RootFS.Layers 0}}'`). So the spec a
// reviewer approves names one interpreter and one set of libraries, whichever runner runs it.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, chmodSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import type Docker from "dockerode";
import { readEnv } from "@/lib/env";
import { BWRAP_IMAGE_PREFIX } from "./spec";
import { SandboxUnavailableError } from "./types";

const DIGEST = /^[0-9a-f]{64}$/;

/** Where root (scripts/ensure-system.sh, a console started as root) extracts the rootfs. */
const SYSTEM_ROOTFS_BASE = "/var/lib/countersign/sandbox-rootfs";

/** Where extracted rootfs directories live: system-wide as root, else the user's cache. */
export function rootfsBaseDir(): string {
  if (process.getuid?.() === 0) return SYSTEM_ROOTFS_BASE;
  const xdg = readEnv("XDG_CACHE_HOME");
  const cache = xdg?.startsWith("/") ? xdg : path.join(os.homedir(), ".cache");
  return path.join(cache, "countersign", "sandbox-rootfs");
}

/**
 * The system-wide base, for a user who cannot extract the rootfs (no Docker access, no cached
 * tarball) but whose machine's root already did: trusted only while root owns it and nobody else
 * can write to it.
 */
function systemBase(): string | null {
  try {
    const stat = statSync(SYSTEM_ROOTFS_BASE);
    return stat.isDirectory() && stat.uid === 0 && (stat.mode & 0o022) === 0 ? SYSTEM_ROOTFS_BASE : null;
  } catch {
    return null;
  }
}

/** The spec image of the namespace sandbox for a rootfs digest ("sha256:…" or bare hex). */
export function bwrapImageForDigest(digest: string, base: string = rootfsBaseDir()): string {
  return BWRAP_IMAGE_PREFIX + path.join(/*turbopackIgnore: true*/ base, bareDigest(digest));
}

/**
 * The rootfs directory a namespace spec names. Only a digest-named directory directly under the
 * rootfs base qualifies, so a stored spec can never bind another host directory as the sandbox's /.
 * A spec from before the shared rootfs (it named the host's python3) is refused with what to do.
 */
export function rootfsDirOf(image: string, base?: string): string {
  if (!image.startsWith(BWRAP_IMAGE_PREFIX)) throw new SandboxUnavailableError(`not a bwrap image: ${image}`);
  const dir = image.slice(BWRAP_IMAGE_PREFIX.length);
  const bases = base !== undefined ? [base] : [rootfsBaseDir(), ...[systemBase()].filter((b): b is string => b !== null)];
  if (!bases.includes(path.dirname(dir)) || !DIGEST.test(path.basename(dir))) {
    if (/\/python3(?:\.\d+)?$/.test(dir)) {
      throw new SandboxUnavailableError(
        `this code was approved to run under the host's ${dir}, which bubblewrap no longer offers (it runs the sandbox image's rootfs); propose it again`,
      );
    }
    throw new SandboxUnavailableError(`bwrap image ${dir} is not a sandbox rootfs under ${bases.join(" or ")}`);
  }
  if (!existsSync(path.join(dir, "usr/bin/python3"))) {
    throw new SandboxUnavailableError(`the sandbox rootfs ${dir} is missing (run scripts/build-sandbox-image.sh, or start the console once with Docker to extract it)`);
  }
  return dir;
}

let ensuring: Promise<{ dir: string; image: string }> | null = null;

/**
 * The rootfs bubblewrap runs, extracted if needed (once per digest; concurrent callers share the
 * work). Sources, in order: the image's digest with its directory already there; the cached
 * tarball build-sandbox-image.sh wrote (its sha256 is the digest); `docker export` of the image.
 * Without Docker, the last extracted rootfs ("current") is used.
 */
export function ensureBwrapRootfs(opts: { docker?: Docker | null; image?: string; cacheDirs?: string[] } = {}): Promise<{ dir: string; image: string }> {
  ensuring ??= locateOrExtract(opts).finally(() => {
    ensuring = null;
  });
  return ensuring;
}

async function locateOrExtract(opts: { docker?: Docker | null; image?: string; cacheDirs?: string[] }): Promise<{ dir: string; image: string }> {
  const base = rootfsBaseDir();
  const cacheDirs = opts.cacheDirs ?? [path.join(process.cwd(), ".cache", "sandbox-image")];
  let digest: string | null = null;
  if (opts.docker && opts.image) digest = await imageLayerDigest(opts.docker, opts.image).catch(() => null);
  if (digest === null) {
    // No Docker: the rootfs extracted last, else the newest cached tarball.
    const current = currentDigest(base);
    if (current && existsSync(path.join(base, current, "usr/bin/python3"))) return found(base, current);
    const tarball = newestTarball(cacheDirs);
    // Nothing of this user's to extract from: the rootfs root extracted for the whole machine.
    const system = tarball ? null : systemBase();
    const systemCurrent = system && system !== base ? currentDigest(system) : null;
    if (system && systemCurrent && existsSync(path.join(system, systemCurrent, "usr/bin/python3"))) return found(system, systemCurrent);
    if (!tarball) throw new SandboxUnavailableError("no sandbox rootfs: Docker is unavailable and no rootfs tarball is cached (run scripts/build-sandbox-image.sh)");
    digest = await sha256File(tarball);
    await extract(base, digest, { tarball });
    return found(base, digest);
  }
  if (existsSync(path.join(base, digest, "usr/bin/python3"))) {
    setCurrent(base, digest);
    return found(base, digest);
  }
  const tarball = await tarballWithDigest(cacheDirs, digest);
  if (tarball) await extract(base, digest, { tarball });
  else if (opts.docker && opts.image) await extract(base, digest, { docker: opts.docker, image: opts.image });
  return found(base, digest);
}

function found(base: string, digest: string): { dir: string; image: string } {
  return { dir: path.join(base, digest), image: bwrapImageForDigest(digest, base) };
}

/** The image's content identity: the digest of its one layer (an imported rootfs tarball). */
export async function imageLayerDigest(docker: Docker, image: string): Promise<string> {
  const info = await docker.getImage(image).inspect();
  const layers = info.RootFS?.Layers ?? [];
  if (layers.length !== 1) throw new Error(`image ${image} has ${layers.length} layers; the sandbox image is one imported rootfs`);
  return bareDigest(layers[0]);
}

function bareDigest(digest: string): string {
  const hex = digest.replace(/^sha256:/, "");
  if (!DIGEST.test(hex)) throw new Error(`not a sha256 digest: ${digest}`);
  return hex;
}

function currentDigest(base: string): string | null {
  try {
    const target = readlinkSync(path.join(base, "current"));
    return DIGEST.test(target) ? target : null;
  } catch {
    return null;
  }
}

function setCurrent(base: string, digest: string): void {
  if (currentDigest(base) === digest) return;
  const tmp = path.join(base, `.current-${process.pid}`);
  rmSync(tmp, { force: true });
  symlinkSync(digest, tmp);
  renameSync(tmp, path.join(base, "current"));
}

function tarballs(cacheDirs: string[]): string[] {
  const out: string[] = [];
  for (const dir of cacheDirs) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) if (/^rootfs-.*\.tar$/.test(name)) out.push(path.join(dir, name));
  }
  return out.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
}

function newestTarball(cacheDirs: string[]): string | null {
  return tarballs(cacheDirs)[0] ?? null;
}

async function tarballWithDigest(cacheDirs: string[], digest: string): Promise<string | null> {
  for (const tarball of tarballs(cacheDirs)) if ((await sha256File(tarball)) === digest) return tarball;
  return null;
}

function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(file)
      .on("data", (chunk) => hash.update(chunk))
      .on("error", reject)
      .on("end", () => resolve(hash.digest("hex")));
  });
}

/** Extracts into a temporary directory and renames it into place, so a half-extracted tree is never used. */
async function extract(base: string, digest: string, source: { tarball: string } | { docker: Docker; image: string }): Promise<void> {
  mkdirSync(base, { recursive: true, mode: 0o755 });
  chmodSync(base, 0o755); // the runs' own uids must reach it
  const tmp = path.join(base, `.extract-${digest.slice(0, 12)}-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { mode: 0o755 });
  try {
    if ("tarball" in source) await untar(tmp, createReadStream(source.tarball));
    else await untarDockerExport(tmp, source.docker, source.image);
    chmodSync(tmp, 0o755); // the tarball's "." may be a 0700 build directory
    const dir = path.join(base, digest);
    if (existsSync(path.join(dir, "usr/bin/python3"))) rmSync(tmp, { recursive: true, force: true });
    else {
      rmSync(dir, { recursive: true, force: true });
      renameSync(tmp, dir);
    }
    setCurrent(base, digest);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw new SandboxUnavailableError(`could not extract the sandbox rootfs: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

function untar(dir: string, input: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    // Device nodes are not needed (bubblewrap mounts its own /dev) and cannot be made without root.
    const tar = spawn("tar", ["-x", "--numeric-owner", "--exclude=./dev/*", "--exclude=dev/*", "-C", dir, "-f", "-"], {
      stdio: ["pipe", "ignore", "pipe"],
    });
    let stderr = "";
    tar.stderr.on("data", (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
    input.on("error", (err) => {
      tar.kill("SIGKILL");
      reject(err);
    });
    tar.stdin.on("error", () => {});
    input.pipe(tar.stdin);
    tar.on("error", reject);
    tar.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`tar exited ${code}: ${stderr.trim()}`))));
  });
}

async function untarDockerExport(dir: string, docker: Docker, image: string): Promise<void> {
  const container = await docker.createContainer({ Image: image, Cmd: ["true"], NetworkDisabled: true, Labels: { "countersign.rootfs-export": "1" } });
  try {
    const stream = (await container.export()) as unknown as Readable;
    await untar(dir, stream);
  } finally {
    await container.remove({ force: true }).catch(() => {});
  }
}
