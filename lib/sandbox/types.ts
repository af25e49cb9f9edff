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
};

export type RunOptions = {
  /** Called as output arrives (until the output limit is reached). */
  onOutput?: (stream: OutputStream, text: string) => void;
  /** Aborting kills the sandbox; a run still queued throws SandboxAbortedError instead. */
  signal?: AbortSignal;
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
