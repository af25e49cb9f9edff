import { StringDecoder } from "node:string_decoder";
import type { SandboxIsolation } from "./spec";
import type { OutputStream, SandboxRunResult } from "./types";

/**
 * Collects stdout/stderr up to a total character limit. Past the limit it keeps accepting (so the
 * pipe drains and the process is not blocked) but stores and forwards nothing more, so a 100 MB
 * print costs no memory.
 */
export class OutputCollector {
  private readonly decoders = { stdout: new StringDecoder("utf8"), stderr: new StringDecoder("utf8") };
  private readonly parts: Record<OutputStream, string[]> = { stdout: [], stderr: [] };
  private stored = 0;
  truncated = false;
  firstOutputAt: number | null = null;

  constructor(
    private readonly limitChars: number,
    private readonly onOutput?: (stream: OutputStream, text: string) => void,
  ) {}

  push(stream: OutputStream, chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (this.firstOutputAt === null) this.firstOutputAt = performance.now();
    if (this.truncated) return;
    this.accept(stream, this.decoders[stream].write(chunk));
  }

  /** Flushes partial UTF-8 sequences left in the decoders. */
  end(): void {
    for (const stream of ["stdout", "stderr"] as const) {
      const rest = this.decoders[stream].end();
      if (!this.truncated && rest) this.accept(stream, rest);
    }
  }

  text(stream: OutputStream): string {
    return this.parts[stream].join("");
  }

  /** The run's result, with what was collected (call after end()). */
  result(run: {
    isolation: SandboxIsolation;
    exitCode: number | null;
    timedOut: boolean;
    oomKilled: boolean;
    aborted: boolean;
    startedAt: number;
  }): SandboxRunResult {
    return {
      isolation: run.isolation,
      exitCode: run.exitCode,
      timedOut: run.timedOut,
      oomKilled: run.oomKilled,
      aborted: run.aborted,
      truncated: this.truncated,
      stdout: this.text("stdout"),
      stderr: this.text("stderr"),
      durationMs: Math.round(performance.now() - run.startedAt),
      firstOutputMs: this.firstOutputAt === null ? null : Math.round(this.firstOutputAt - run.startedAt),
    };
  }

  private accept(stream: OutputStream, text: string): void {
    if (!text) return;
    const room = this.limitChars - this.stored;
    let kept = text;
    if (text.length > room) {
      kept = text.slice(0, room);
      // Do not split a surrogate pair at the cut.
      if (kept.length > 0 && /[\uD800-\uDBFF]$/.test(kept)) kept = kept.slice(0, -1);
      this.truncated = true;
    }
    if (!kept) return;
    this.stored += kept.length;
    this.parts[stream].push(kept);
    try {
      this.onOutput?.(stream, kept);
    } catch {
      // A failing listener (e.g. a closed HTTP stream) must not break the run or its cleanup.
    }
  }
}
