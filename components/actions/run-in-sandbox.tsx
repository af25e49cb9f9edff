"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { buttonClass } from "@/components/ui/button";
import { visibleText } from "@/lib/review/visible-text";

type Line = { stream: "stdout" | "stderr" | "info" | "error"; text: string };

/**
 * Runs approved code once through the console's execution route and shows the sandbox's output
 * as it streams (NDJSON: stdout/stderr lines, then one result or error line).
 */
export function RunInSandbox({ actionId, payloadHash, canRun }: { actionId: string; payloadHash: string; canRun: boolean }) {
  const router = useRouter();
  const [lines, setLines] = useState<Line[]>([]);
  const [running, setRunning] = useState(false);

  const run = async () => {
    setRunning(true);
    setLines([{ stream: "info", text: "Starting the sandbox…" }]);
    const add = (line: Line) => setLines((old) => [...old, line]);
    try {
      const response = await fetch(`/api/actions/${actionId}/execute`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ payloadHash }),
      });
      if (!response.ok || !response.body) {
        const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
        add({ stream: "error", text: body?.error?.message ?? `The run was refused (HTTP ${response.status}).` });
        return;
      }
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        const parts = buffer.split("\n");
        buffer = parts.pop() ?? "";
        for (const part of parts) if (part.trim()) handle(JSON.parse(part) as Record<string, unknown>, add);
      }
      if (buffer.trim()) handle(JSON.parse(buffer) as Record<string, unknown>, add);
    } catch {
      add({ stream: "error", text: "The connection to the run was lost. Reload to see how it ended." });
    } finally {
      setRunning(false);
      router.refresh();
    }
  };

  // After the run the page refreshes and the button goes (an approval runs once); this component
  // stays mounted so the streamed output stays on screen.
  if (!canRun && lines.length === 0) return null;
  return (
    <div className="mt-3 space-y-2 border-t border-slate-100 pt-3">
      {canRun && <button type="button" className={buttonClass.primary} disabled={running} aria-busy={running} onClick={run}>
        {running ? "Running…" : "Run in sandbox"}
      </button>}
      {lines.length > 0 && (
        <pre aria-label="Sandbox output" aria-live="polite" tabIndex={0} className="max-h-80 overflow-auto whitespace-pre-wrap break-words rounded-md bg-slate-950 p-3 font-mono text-[0.8rem] leading-relaxed text-slate-100">
          {lines.map((line, i) => (
            <span key={i} className={line.stream === "stderr" ? "text-amber-300" : line.stream === "error" ? "text-red-300" : line.stream === "info" ? "text-sky-300" : ""}>
              {visibleText(line.text)}
              {line.stream === "info" || line.stream === "error" ? "\n" : ""}
            </span>
          ))}
        </pre>
      )}
    </div>
  );
}

function handle(event: Record<string, unknown>, add: (line: Line) => void) {
  if (event.type === "stdout" || event.type === "stderr") add({ stream: event.type, text: String(event.text ?? "") });
  else if (event.type === "error") add({ stream: "error", text: `Refused: ${String(event.message ?? "the run was refused")}` });
  else if (event.type === "result") {
    if (typeof event.stdout === "string" && event.stdout) add({ stream: "stdout", text: event.stdout });
    if (typeof event.stderr === "string" && event.stderr) add({ stream: "stderr", text: event.stderr });
    const bits = [
      `Finished: ${String(event.state)}`,
      event.exitCode !== null && event.exitCode !== undefined ? `exit code ${String(event.exitCode)}` : null,
      typeof event.durationMs === "number" ? `${event.durationMs} ms` : null,
      event.isolation ? `isolation ${String(event.isolation)}` : null,
      event.truncated ? "output truncated" : null,
      event.timedOut ? "timed out" : null,
      event.replayed ? "recorded result of the earlier run" : null,
    ].filter(Boolean);
    add({ stream: "info", text: bits.join(" · ") });
  }
}
