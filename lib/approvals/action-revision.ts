import type { JsonObject } from "@/lib/canonical/json-value";
import { payloadHash, type PayloadHash } from "@/lib/canonical/payload-hash";

/** The payload of one revision, as stored, from which its hash is (re)computed. */
export type RevisionPayload = {
  tenantId: string;
  tool: string;
  kind: "tool" | "code";
  args: JsonObject | null;
  code: string | null;
  language: string | null;
  sandboxSpec: JsonObject | null;
  revision: number;
  policyVersion: number;
};

/** A data set a code revision mounts, as approved: its name and the SHA-256 and size of its bytes. */
export type DatasetRef = { name: string; sha256: string; bytes: number };

/** The data sets a stored code revision names (kept in its `args` column: code carries no args). */
export function datasetRefsOf(p: Pick<RevisionPayload, "kind" | "args">): DatasetRef[] {
  return p.kind === "code" ? parseDatasetRefs(p.args?.datasets) : [];
}

/** The well-formed `{name, sha256, bytes}` entries of a stored list (a code snapshot's or revision's). */
export function parseDatasetRefs(list: unknown): DatasetRef[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((d) =>
    d && typeof d === "object" && !Array.isArray(d) && typeof d.name === "string" && typeof d.sha256 === "string" && typeof d.bytes === "number"
      ? [{ name: d.name, sha256: d.sha256, bytes: d.bytes }]
      : [],
  );
}

/** SPEC invariant 2: the hash a decision binds to. */
export function revisionHash(p: RevisionPayload): PayloadHash {
  const datasets = p.kind === "code" && Array.isArray(p.args?.datasets) ? (p.args.datasets as JsonObject[]) : undefined;
  return p.kind === "code"
    ? payloadHash({
        v: 1, tenant: p.tenantId, tool: p.tool, code: p.code ?? "", language: p.language ?? "python",
        sandbox: p.sandboxSpec, ...(datasets ? { datasets } : {}), revision: p.revision, policyVersion: p.policyVersion,
      })
    : payloadHash({ v: 1, tenant: p.tenantId, tool: p.tool, args: p.args ?? {}, revision: p.revision, policyVersion: p.policyVersion });
}

/** Just the fields of a revision its hash covers (e.g. to send a locked row to the compute pool). */
export function revisionPayloadOf(p: RevisionPayload): RevisionPayload {
  const { tenantId, tool, kind, args, code, language, sandboxSpec, revision, policyVersion } = p;
  return { tenantId, tool, kind, args, code, language, sandboxSpec, revision, policyVersion };
}

/** The arguments a tool's execute() receives for a revision (code tools get their code block). */
export function toolArgsOf(p: Pick<RevisionPayload, "kind" | "args" | "code" | "language">): JsonObject {
  if (p.kind !== "code") return p.args ?? {};
  const datasets = datasetRefsOf(p).map((d) => d.name);
  return { code: p.code ?? "", language: p.language ?? "python", ...(datasets.length ? { datasets } : {}) };
}

/**
 * How a tool's arguments are stored and hashed: a code tool's as code + language (+ the data sets
 * it mounts, resolved to their hashes), others as args.
 */
export function payloadColumns(kind: "tool" | "code", args: JsonObject, datasets: DatasetRef[] = []): Pick<RevisionPayload, "args" | "code" | "language"> {
  return kind === "code"
    ? { args: datasets.length ? { datasets } : null, code: String(args.code ?? ""), language: String(args.language ?? "python") }
    : { args, code: null, language: null };
}
