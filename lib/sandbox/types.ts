import type { SandboxIsolation } from "./spec";

export type OutputStream = "stdout" | "stderr";

export type SandboxRunResult = {
  isolation: SandboxIsolation;
  /** null when the process was killed (timeout, abort, OOM) before it could exit on its own. */
  exitCode: number | null;
  timedOut: boolean;
  oomKilled: boolean;
  /** The caller's AbortSignal fired while the code ran; the sandbox was killed. */
  aborted: boolean;
  /** More output than outputLimitChars was produced; stdout/stderr hold only the first part. */
  truncated: boolean;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** Time from the call to the first output byte, if any. */
  firstOutputMs: number | null;
  /** What the code left in /mnt/out (absent when the run never got that far: aborted before start). */
  artifacts?: CollectedArtifacts;
};

/** A data set's bytes, mounted read-only at /mnt/data/<name>. */
export type DatasetFile = { name: string; bytes: Buffer };

/** A file the code left under /mnt/out; `path` is relative to it ("chart.png", "tables/a.csv"). */
export type ArtifactFile = { path: string; bytes: Buffer };

/** All the files under /mnt/out, or why none are kept (over a cap, or something not a plain file). */
export type CollectedArtifacts = { files: ArtifactFile[] } | { refused: string };

export type ArtifactCaps = { maxCount: number; maxTotalBytes: number };

export type RunOptions = {
  /** Called as output arrives (until the output limit is reached). */
  onOutput?: (stream: OutputStream, text: string) => void;
  /** Aborting kills the sandbox; a run still queued throws SandboxAbortedError instead. */
  signal?: AbortSignal;
  /** Files mounted read-only at /mnt/data/<name> (their hashes were verified by the caller). */
  datasets?: DatasetFile[];
  /** Caps on what comes back from /mnt/out; absent: SANDBOX_ARTIFACT_MAX_COUNT / _MB. */
  artifactCaps?: ArtifactCaps;
};

/** No sandbox of the requested kind can run now. Code is then refused, never run on the host. */
export class SandboxUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SandboxUnavailableError";
  }
}

/** The caller aborted before the code started. */
export class SandboxAbortedError extends Error {
  constructor() {
    super("sandbox run aborted before it started");
    this.name = "SandboxAbortedError";
  }
}
