// Pure functions of plain data whose cost grows with the input: they run on the compute pool
// (lib/compute/compute-pool.ts) through the tasks declared in compute.ts beside this file.
import { createHash } from "node:crypto";
import { canonicalJsonOfPlainJson } from "@/lib/canonical/canonical-json";

/** A data set as stored (its content as JSON text). */
export type DatasetFileInput = { name: string; contentText: string };
/** The bytes a run reads for it (its content as RFC 8785 canonical JSON) and their SHA-256. */
export type DatasetFileOutput = { name: string; bytes: Uint8Array; sha256: string };

/** Data sets as the files a run mounts: parsing, canonicalising and hashing grow with their size. */
export function datasetFiles(rows: DatasetFileInput[]): DatasetFileOutput[] {
  return rows.map((row) => {
    const bytes = Buffer.from(canonicalJsonOfPlainJson(JSON.parse(row.contentText)), "utf8");
    return { name: row.name, bytes, sha256: createHash("sha256").update(bytes).digest("hex") };
  });
}
