import { z } from "zod";
import { AppError } from "@/lib/errors";
import { runInSandbox } from "@/lib/sandbox/select-runner";
import { parseSandboxSpec } from "@/lib/sandbox/spec";
import { defineTool } from "@/lib/tools/tool";

const Args = z.strictObject({
  code: z.string().min(1).max(100_000),
  language: z.literal("python", { error: 'language must be "python" (Python 3 is the only language), or left out.' }).default("python"),
});

export const runPython = defineTool({
  name: "run_python",
  kind: "code",
  description:
    "Run a Python 3 snippet in an isolated sandbox with no network and no host access (csv, json, statistics, pandas and numpy are available; os, subprocess, sys, socket and shutil are not). Print what you want to see.",
  classes: ["code-exec"],
  args: Args,
  snapshot: async () => null,
  preview: (args) => ({ summary: `Run ${args.code.split("\n").length} lines of Python in the sandbox`, before: null, after: null }),
  // Nothing in the database: the run happens after the claim commits. Its output could differ on
  // a re-run, so a run cut short by a crash is left unknown for a person.
  apply: async () => ({ ok: true, result: {}, deliver: true }),
  async deliver(ctx, args) {
    if (!ctx.sandboxSpec) throw new AppError("sandbox_unavailable", "No sandbox spec was approved with this code.", 409);
    const spec = parseSandboxSpec(ctx.sandboxSpec);
    const run = await runInSandbox(spec, args.code, { onOutput: ctx.onOutput, signal: ctx.signal });
    const ok = run.exitCode === 0 && !run.timedOut && !run.oomKilled && !run.aborted;
    return {
      ok,
      isolation: run.isolation,
      result: {
        exit_code: run.exitCode,
        timed_out: run.timedOut,
        oom_killed: run.oomKilled,
        truncated: run.truncated,
        stdout: run.stdout,
        stderr: run.stderr,
        duration_ms: Math.round(run.durationMs),
        isolation: run.isolation,
      },
    };
  },
});
