// Files in and out of a sandbox run: data sets mounted read-only at /mnt/data/<name>, and the files
// the code leaves under /mnt/out collected as artifacts — all of them within the caps, or none.
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync } from "node:fs";
import path from "node:path";
import { processEnv, readEnv, type EnvSource } from "@/lib/env";
import type { ArtifactCaps, ArtifactFile, CollectedArtifacts, DatasetFile } from "./types";

export const DATASET_MOUNT = "/mnt/data";
export const ARTIFACT_MOUNT = "/mnt/out";

const MB = 1024 * 1024;

/** The caps on what a run may hand back (SANDBOX_ARTIFACT_MAX_COUNT, SANDBOX_ARTIFACT_MAX_MB). */
export function artifactCaps(env: EnvSource = processEnv()): ArtifactCaps {
  return {
    maxCount: readEnv("SANDBOX_ARTIFACT_MAX_COUNT", env) ?? 16,
    maxTotalBytes: (readEnv("SANDBOX_ARTIFACT_MAX_MB", env) ?? 8) * MB,
  };
}

/** Largest total size of the data sets one run may name (SANDBOX_DATASET_MAX_MB). */
export function datasetMaxBytes(env: EnvSource = processEnv()): number {
  return (readEnv("SANDBOX_DATASET_MAX_MB", env) ?? 8) * MB;
}

export function tooManyFiles(caps: ArtifactCaps): string {
  return `The code left more than ${caps.maxCount} files in ${ARTIFACT_MOUNT}, the most a run may hand back (SANDBOX_ARTIFACT_MAX_COUNT), so none were kept: write fewer files (e.g. zip them into one).`;
}

export function tooManyBytes(caps: ArtifactCaps): string {
  return `The files in ${ARTIFACT_MOUNT} add up to more than ${formatMb(caps.maxTotalBytes)}, the most a run may hand back (SANDBOX_ARTIFACT_MAX_MB), so none were kept: write smaller files.`;
}

function notPlainFile(name: string): string {
  return `${ARTIFACT_MOUNT}/${name} is not a plain file (a link or device), so no artifacts were kept: leave only regular files and folders there.`;
}

function formatMb(bytes: number): string {
  return `${Math.round((bytes / MB) * 10) / 10} MB`;
}

/**
 * Collects a host folder that was the run's /mnt/out (bubblewrap). The code has exited and its
 * process group is gone, so nothing changes under us; links are refused, never followed (the
 * collector reads as the console's user, who may see more than the code could).
 */
export function collectArtifactsFromDir(root: string, caps: ArtifactCaps): CollectedArtifacts {
  const found: { rel: string; full: string }[] = [];
  let total = 0;
  const walk = (dir: string, prefix: string): string | null => {
    for (const entry of readdirSync(dir).sort()) {
      const full = path.join(dir, entry);
      const rel = prefix ? `${prefix}/${entry}` : entry;
      const stat = lstatSync(full);
      if (stat.isDirectory()) {
        const refused = walk(full, rel);
        if (refused) return refused;
      } else if (stat.isFile()) {
        found.push({ rel, full });
        total += stat.size;
        if (found.length > caps.maxCount) return tooManyFiles(caps);
        if (total > caps.maxTotalBytes) return tooManyBytes(caps);
      } else {
        return notPlainFile(rel);
      }
    }
    return null;
  };
  const refused = walk(root, "");
  if (refused) return { refused };
  const files: ArtifactFile[] = [];
  for (const { rel, full } of found) {
    const fd = openSync(full, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const size = fstatSync(fd).size;
      if (size > caps.maxTotalBytes) return { refused: tooManyBytes(caps) };
      const bytes = Buffer.alloc(size);
      let read = 0;
      while (read < size) {
        const n = readSync(fd, bytes, read, size - read, read);
        if (n === 0) break;
        read += n;
      }
      files.push({ path: rel, bytes: bytes.subarray(0, read) });
    } finally {
      closeSync(fd);
    }
  }
  return { files };
}

/**
 * How many bytes of a tar stream of /mnt/out to accept before calling it over the cap: the files'
 * cap plus a header (and padding) for every entry a full set could need.
 */
export function tarStreamLimit(caps: ArtifactCaps): number {
  return caps.maxTotalBytes + (caps.maxCount + 64) * 2048 + 10_240;
}

/**
 * Reads a GNU/ustar archive of /mnt/out (`tar -C /mnt/out -cf - .`, run in the container after the
 * code exited). Regular files and folders only; links and devices refuse the whole set.
 */
export function parseArtifactsTar(archive: Buffer, caps: ArtifactCaps): CollectedArtifacts {
  const files: ArtifactFile[] = [];
  let total = 0;
  let longName: string | null = null;
  for (let offset = 0; offset + 512 <= archive.length; ) {
    const header = archive.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const size = parseOctal(header.subarray(124, 136));
    const type = header[156] === 0 ? "0" : String.fromCharCode(header[156]);
    const body = archive.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === "L") {
      longName = cString(body);
      continue;
    }
    const prefix = cString(header.subarray(345, 500));
    const rawName = longName ?? (prefix ? `${prefix}/${cString(header.subarray(0, 100))}` : cString(header.subarray(0, 100)));
    longName = null;
    const name = rawName.replace(/^\.\/?/, "").replace(/\/$/, "");
    if (type === "5" || name === "") continue;
    if (type !== "0" && type !== "7") return { refused: notPlainFile(name) };
    if (name.split("/").some((part) => part === ".." || part === "")) return { refused: notPlainFile(name) };
    if (body.length < size) return { refused: `The archive of ${ARTIFACT_MOUNT} ended early, so no artifacts were kept.` };
    files.push({ path: name, bytes: Buffer.from(body) });
    total += size;
    if (files.length > caps.maxCount) return { refused: tooManyFiles(caps) };
    if (total > caps.maxTotalBytes) return { refused: tooManyBytes(caps) };
  }
  // In name order, as collectArtifactsFromDir gives them (tar follows the directory's order).
  return { files: files.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0)) };
}

/** A ustar archive of the data sets for `tar -x` in the container: root-owned, read-only files. */
export function datasetsTar(datasets: DatasetFile[]): Buffer {
  const parts: Buffer[] = [];
  for (const file of datasets) {
    const header = Buffer.alloc(512);
    header.write(file.name, 0, 100, "utf8");
    header.write("0000444\0", 100, "ascii"); // mode
    header.write("0000000\0", 108, "ascii"); // uid root
    header.write("0000000\0", 116, "ascii"); // gid root
    header.write(`${file.bytes.length.toString(8).padStart(11, "0")}\0`, 124, "ascii");
    header.write("00000000000\0", 136, "ascii"); // mtime
    header.write("        ", 148, "ascii"); // checksum placeholder
    header.write("0", 156, "ascii");
    header.write("ustar\u000000", 257, "ascii");
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "ascii");
    parts.push(header, file.bytes, Buffer.alloc((512 - (file.bytes.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

function cString(bytes: Buffer): string {
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end === -1 ? bytes.length : end).toString("utf8");
}

function parseOctal(bytes: Buffer): number {
  const text = cString(bytes).trim();
  return text ? parseInt(text, 8) : 0;
}

/** Data set names become file names under /mnt/data: one path segment, nothing hidden. */
export function isSafeDatasetName(name: string): boolean {
  return /^[a-z0-9][a-z0-9._-]{0,99}$/.test(name) && !name.includes("..");
}
