import { createHash, randomUUID } from "node:crypto";
import { z } from "zod";
import type { JsonObject } from "@/lib/canonical/json-value";
import { datasetFileName, datasetFilesOf, loadDatasetFiles, type DatasetFileContent } from "@/lib/datasets/load-dataset-files";
import { readDatasets } from "@/lib/db/statements/business/read-datasets";
import { AppError, notFound } from "@/lib/errors";
import { artifactContentType } from "@/lib/executions/artifact-content-type";
import { ARTIFACT_MOUNT, DATASET_MOUNT, datasetMaxBytes } from "@/lib/sandbox/run-files";
import { runInSandbox } from "@/lib/sandbox/select-runner";
import { parseSandboxSpec } from "@/lib/sandbox/spec";
import { defineTool, type StoredArtifact } from "@/lib/tools/tool";
import { DatasetNameSchema } from "@/lib/tools/state-references";

const Args = z.strictObject({
  code: z.string().min(1).max(100_000),
  language: z.literal("python", { error: 'language must be "python" (Python 3 is the only language), or left out.' }).default("python"),
  datasets: z
    .array(DatasetNameSchema)
    .min(1)
    .max(8, "at most 8 data sets per run")
    .refine((names) => new Set(names).size === names.length, "each data set once")
    .optional(),
});

/** The data sets a run reads, as the approval binds them (refused past the mount limit, unless re-read under lock). */
function datasetsSnapshot(files: DatasetFileContent[], locked: boolean): JsonObject {
  const total = files.reduce((sum, f) => sum + f.bytes.length, 0);
  if (!locked && total > datasetMaxBytes()) {
    throw new AppError(
      "datasets_too_large",
      `The data sets named add up to ${total} bytes, more than a run may mount (SANDBOX_DATASET_MAX_MB = ${datasetMaxBytes() / 1024 / 1024} MB): name fewer or smaller data sets.`,
      400,
    );
  }
  return { datasets: files.map((f) => ({ name: f.name, file: `${DATASET_MOUNT}/${f.file}`, sha256: f.sha256, bytes: f.bytes.length })) };
}

export const runPython = defineTool({
  name: "run_python",
  kind: "code",
  description:
    "Run a Python 3 snippet in an isolated sandbox with no network and no host access (csv, json, statistics, pandas and numpy are available; os, subprocess, sys, socket and shutil are not). Print what you want to see. " +
    `Name the tenant's data sets in \`datasets\` to read them at ${DATASET_MOUNT}/<name>.json (read-only); files the code writes under ${ARTIFACT_MOUNT} come back as artifacts (e.g. a chart as PNG, a table as CSV).`,
  classes: ["code-exec"],
  args: Args,
  // Read by its own reader below (the bytes' hash, under the mount limit): exactly these fields.
  restsOn: [{ key: "datasets", entity: "dataset", arg: "datasets", fields: ["name", "file", "sha256", "bytes"] }],
  // The data sets the code reads, with the hash of their bytes: reviewers approve those bytes, and
  // a data set that changes before the run invalidates the approval (read again under lock).
  async snapshot(ctx, args) {
    if (!args.datasets?.length) return null;
    // Read under lock (a vote, a re-read, a claim), the rows stay locked until the data sets are
    // hashed: that work runs `urgently`, ahead of proposals on the pool (lib/scheduling/urgency.ts).
    const files = await loadDatasetFiles(ctx.q, { tenantId: ctx.tenantId, names: args.datasets, lock: ctx.lock });
    return datasetsSnapshot(files, ctx.lock === true);
  },
  // One read of every data set the page's runs name.
  async snapshots(ctx, all) {
    const names = [...new Set(all.flatMap((a) => a.datasets ?? []))];
    const byName = names.length ? await datasetFilesOf(await readDatasets(ctx.q, { tenantId: ctx.tenantId, names })) : new Map<string, DatasetFileContent>();
    return all.map((args) => {
      if (!args.datasets?.length) return null;
      const missing = args.datasets.find((name) => !byName.has(name));
      if (missing !== undefined) return notFound(`Data set ${missing}`);
      try {
        return datasetsSnapshot(args.datasets.map((name) => byName.get(name)!), false);
      } catch (error) {
        return error instanceof Error ? error : new Error(String(error));
      }
    });
  },
  preview: (args, snapshot) => {
    const lines = `Run ${args.code.split("\n").length} lines of Python in the sandbox`;
    const list = Array.isArray(snapshot?.datasets) ? (snapshot.datasets as JsonObject[]) : [];
    if (list.length === 0) return { summary: lines, before: null, after: null };
    const described = list.map((d) => `${String(d.name)} (${String(d.bytes)} bytes, sha256 ${String(d.sha256).slice(0, 12)}…)`);
    return { summary: `${lines}, reading data set${list.length > 1 ? "s" : ""} ${described.join(", ")}`, before: null, after: null };
  },
  // Nothing in the database: the run happens after the claim commits. Its output could differ on
  // a re-run, so a run cut short by a crash is left unknown for a person.
  apply: async () => ({ ok: true, result: {}, deliver: true }),
  async deliver(ctx, args) {
    if (!ctx.sandboxSpec) throw new AppError("sandbox_unavailable", "No sandbox spec was approved with this code.", 409);
    const spec = parseSandboxSpec(ctx.sandboxSpec);
    const datasets = await verifiedDatasets(ctx, args.datasets ?? []);
    const run = await runInSandbox(spec, args.code, {
      onOutput: ctx.onOutput,
      signal: ctx.signal,
      datasets: datasets.map((d) => ({ name: datasetFileName(d.name), bytes: d.bytes })),
    });
    let ok = run.exitCode === 0 && !run.timedOut && !run.oomKilled && !run.aborted;
    const collected = run.artifacts ?? { files: [] };
    const refused = "refused" in collected ? collected.refused : null;
    const artifacts: StoredArtifact[] =
      "files" in collected
        ? collected.files.map((f) => ({
            id: randomUUID(), name: f.path, contentType: artifactContentType(f.path, f.bytes),
            sha256: createHash("sha256").update(f.bytes).digest("hex"), bytes: f.bytes,
          }))
        : [];
    // A run whose files could not all come back did not deliver what it was asked to: failed, and
    // nothing of it is kept as if it were the whole.
    if (refused) ok = false;
    return {
      ok,
      isolation: run.isolation,
      artifacts,
      result: {
        exit_code: run.exitCode,
        timed_out: run.timedOut,
        oom_killed: run.oomKilled,
        truncated: run.truncated,
        stdout: run.stdout,
        stderr: run.stderr,
        duration_ms: Math.round(run.durationMs),
        isolation: run.isolation,
        artifacts: artifacts.map((a) => ({ id: a.id, name: a.name, content_type: a.contentType, size_bytes: a.bytes.length, sha256: a.sha256 })),
        ...(refused ? { artifacts_refused: refused, error: refused } : {}),
      },
    };
  },
});

/**
 * The approved data sets' bytes, read now and checked against the hashes reviewers approved: a
 * data set that changed after the claim (which re-read them under lock) is not run on.
 */
async function verifiedDatasets(
  ctx: { q: Parameters<typeof loadDatasetFiles>[0]; tenantId: string; approvedDatasets: { name: string; sha256: string }[] },
  named: string[],
) {
  const approved = ctx.approvedDatasets;
  const sameNames = approved.length === named.length && approved.every((d, i) => d.name === named[i]);
  if (!sameNames) throw new AppError("dataset_changed", "The data sets to mount are not those approved; nothing was run.", 409);
  const files = await loadDatasetFiles(ctx.q, { tenantId: ctx.tenantId, names: named });
  for (const [i, file] of files.entries()) {
    if (file.sha256 !== approved[i].sha256) {
      throw new AppError(
        "dataset_changed",
        `Data set ${file.name} changed after it was approved (approved sha256 ${approved[i].sha256.slice(0, 12)}…, now ${file.sha256.slice(0, 12)}…), so nothing was run: propose the code again so reviewers see the new content.`,
        409,
      );
    }
  }
  return files;
}
