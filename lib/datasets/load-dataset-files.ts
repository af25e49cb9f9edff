import { createHash } from "node:crypto";
import { canonicalJsonOfPlainJson } from "@/lib/canonical/canonical-json";
import type { JsonValue } from "@/lib/canonical/json-value";
import type { Queryable } from "@/lib/db/sql";
import { readDatasets } from "@/lib/db/statements/read-datasets";
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
  const byName = datasetFilesOf(await readDatasets(q, input));
  return input.names.map((name) => {
    const file = byName.get(name);
    if (!file) throw notFound(`Data set ${name}`);
    return file;
  });
}

/** Data set rows as the files a run reads, by name. */
export function datasetFilesOf(rows: { name: string; content: JsonValue }[]): Map<string, DatasetFileContent> {
  return new Map(
    rows.map((row) => {
      const bytes = Buffer.from(canonicalJsonOfPlainJson(row.content), "utf8");
      return [row.name, { name: row.name, file: datasetFileName(row.name), bytes, sha256: createHash("sha256").update(bytes).digest("hex") }];
    }),
  );
}
