import { runCompute } from "@/lib/compute/compute-pool";
import { datasetFilesTask } from "@/lib/datasets/compute";
import type { Queryable } from "@/lib/db/sql";
import { readDatasets, type DatasetText } from "@/lib/db/statements/business/read-datasets";
import { notFound } from "@/lib/errors";

/** A data set as the sandbox sees it: /mnt/data/<file>, these exact bytes. */
export type DatasetFileContent = { name: string; file: string; bytes: Buffer; sha256: string };

/** The file a data set is mounted as: its rows as RFC 8785 canonical JSON, so the bytes are stable. */
export function datasetFileName(name: string): string {
  return `${name}.json`;
}

/**
 * The named data sets of the tenant, in the order named, as the bytes a run reads. Throws
 * not_found for a name the tenant has no data set under — another tenant's data set is not found
 * either, since the tenant is in the query.
 */
export async function loadDatasetFiles(
  q: Queryable,
  input: { tenantId: string; names: string[]; lock?: boolean },
): Promise<DatasetFileContent[]> {
  if (input.names.length === 0) return [];
  const byName = await datasetFilesOf(await readDatasets(q, input));
  return input.names.map((name) => {
    const file = byName.get(name);
    if (!file) throw notFound(`Data set ${name}`);
    return file;
  });
}

/**
 * Data set rows as the files a run reads: parsing, canonicalising and hashing grow with the size
 * (up to SANDBOX_DATASET_MAX_MB), so they run on the compute pool.
 */
export async function datasetFilesOf(rows: DatasetText[]): Promise<Map<string, DatasetFileContent>> {
  if (rows.length === 0) return new Map();
  const files = await runCompute(datasetFilesTask, rows, { what: "data sets" });
  return new Map(
    files.map((file) => [
      file.name,
      { name: file.name, file: datasetFileName(file.name), bytes: Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength), sha256: file.sha256 },
    ]),
  );
}
