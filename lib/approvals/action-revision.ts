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

/** SPEC invariant 2: the hash a decision binds to. */
export function revisionHash(p: RevisionPayload): PayloadHash {
  return p.kind === "code"
    ? payloadHash({
        v: 1, tenant: p.tenantId, tool: p.tool, code: p.code ?? "", language: p.language ?? "python",
        sandbox: p.sandboxSpec, revision: p.revision, policyVersion: p.policyVersion,
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
  return p.kind === "code" ? { code: p.code ?? "", language: p.language ?? "python" } : (p.args ?? {});
}

/** How a tool's arguments are stored and hashed: a code tool's as code + language, others as args. */
export function payloadColumns(kind: "tool" | "code", args: JsonObject): Pick<RevisionPayload, "args" | "code" | "language"> {
  return kind === "code"
    ? { args: null, code: String(args.code ?? ""), language: String(args.language ?? "python") }
    : { args, code: null, language: null };
}
