// The work whose cost grows with the input, as pure functions of plain data. They run in the
// compute pool's worker threads (lib/compute/compute-pool.ts), never on a request thread.
import { createHash } from "node:crypto";
import { revisionHash, type RevisionPayload } from "@/lib/approvals/action-revision";
import { canonicalJsonOfPlainJson } from "@/lib/canonical/canonical-json";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { PayloadHash } from "@/lib/canonical/payload-hash";
import { evaluatePolicy, type PolicyDecision, type PolicyInput } from "@/lib/policy/evaluate-policy";
import type { Policy } from "@/lib/policy/policy-document";
import { tracePolicy, type PolicyTrace } from "@/lib/policy/trace-policy";
import type { PolicyToolCatalogue } from "@/lib/policy/policy-tool-catalogue";
import type { RecordedRevisionText } from "@/lib/policy/recorded-policy-inputs";
import { validatePolicy, type PolicyValidationResult } from "@/lib/policy/validate-policy";
import { riskTagsFor, type RiskInput } from "@/lib/risk/risk-tags-for";
import { riskLevel, type RiskLevel, type RiskTag } from "@/lib/risk/risk-tag";
import { scanPython, type ScanFinding } from "@/lib/sandbox/prescan";
import type { StateFinding } from "@/lib/tools/tool";
import { argumentCheck } from "@/lib/mcp/upstream/argument-validator";

export type JudgeInput = {
  /** Code to pre-scan (code tools), or null. */
  code: string | null;
  /** Absent: the scanner's defaults. */
  bannedModules?: string[];
  risk: Omit<RiskInput, "scanFindings">;
  /**
   * The tenant's policy as JSON, named by tenant and version (versions are immutable): a thread
   * parses (and compiles) each version once, and a string crosses to it far cheaper than an object.
   */
  policy: { json: string; cacheKey: string };
  /** What the policy reads, apart from the risk this task computes. */
  policyInput: { tool: string; args: PolicyInput["args"]; context: Omit<PolicyInput["context"], "riskLevel" | "riskTags">; unlisted?: PolicyInput["unlisted"] };
  /** A reason known before the payload is read (no sandbox, a broken policy): denied with it. */
  refusal: string | null;
  /** The tool's argument-vs-state checks that failed: each is a critical tag, and the payload is denied. */
  stateFindings?: StateFinding[];
  /** The revision whose hash a decision will bind to. */
  payload: RevisionPayload;
  /**
   * For code: the gVisor spec a policy rule may require instead of payload.sandboxSpec, or why
   * gVisor cannot run here. Absent for tools.
   */
  gvisor?: { spec: JsonObject | null; reason: string };
};

export type Judgement = {
  scanFindings: ScanFinding[];
  riskTags: RiskTag[];
  riskLevel: RiskLevel;
  decision: PolicyDecision;
  /** Set when the payload must never reach a human (blocked code, no sandbox, broken policy). */
  refusal: string | null;
  hash: PayloadHash;
  /** The sandbox spec the hash covers: the payload's, or gVisor's when the deciding rule requires it. */
  sandboxSpec: JsonObject | null;
};

// This thread's parsed policies, by cache key; the same object each time, so evaluatePolicy's
// compiled cache holds.
const policies = new Map<string, Policy>();
const MAX_POLICIES = 256;

function policyOf({ json, cacheKey }: JudgeInput["policy"]): Policy {
  let policy = policies.get(cacheKey);
  if (!policy) {
    if (policies.size >= MAX_POLICIES) policies.clear();
    policy = JSON.parse(json) as Policy;
    policies.set(cacheKey, policy);
  }
  return policy;
}

const denied = (reason: string): PolicyDecision => ({
  effect: "deny", ruleId: null, reason, quorum: 0, eligibleRoles: [], ttlSeconds: 0, tier: "critical",
});

/** One payload's pre-scan, risk tags, policy verdict and hash. */
export async function judgePayload(input: JudgeInput): Promise<Judgement> {
  const scan = input.code === null ? null : await scanPython(input.code, { bannedModules: input.bannedModules });
  // What is wrong with the code itself comes first, also when nothing could run it anyway: it is
  // what the agent can act on (the seeds' loop sends blocked code back with the reason).
  const scanRefusal = scan?.parseError
    ? `The code does not parse: ${scan.parseError}`
    : scan && scan.blocked.length > 0
      ? `The code was blocked before review: ${scan.blocked.map((f) => `line ${f.line}: ${f.message}`).join("; ")}`
      : null;
  // Arguments that contradict the state they rest on are refused here, the one place a payload is
  // judged (proposals, edits, re-reads and re-proposals after a state change all pass through).
  const stateFindings = input.stateFindings ?? [];
  const stateRefusal = stateFindings.length
    ? `The arguments do not fit the state they rest on, so this was refused before review: ${stateFindings.map((f) => f.reason).join(" ")}`
    : null;
  const refusal = [scanRefusal, input.refusal].filter((r): r is string => r !== null).join(" — ") || null;
  const scanFindings = scan ? [...scan.blocked, ...scan.findings] : [];
  const riskTags = riskTagsFor({
    ...input.risk,
    scanFindings: scanFindings.map((f) => ({ rule: f.rule, line: f.line, message: f.message, severity: f.severity })),
    stateFindings,
  });
  const level = riskLevel(riskTags);
  const byPolicy = refusal
    ? denied(refusal)
    : evaluatePolicy(policyOf(input.policy), {
        ...input.policyInput,
        context: { ...input.policyInput.context, riskLevel: level, riskTags: riskTags.map((t) => t.id) },
      });
  // A policy that denies anyway keeps its rule and reason (the findings stay as tags).
  const decided = stateRefusal && byPolicy.effect !== "deny" ? denied(stateRefusal) : byPolicy;
  const { decision, payload, requirementRefusal } = applySandboxRequirement(decided, input);
  const finalRefusal = requirementRefusal ?? refusal ?? (decided === byPolicy ? null : stateRefusal);
  return { scanFindings, riskTags, riskLevel: level, decision, refusal: finalRefusal, hash: revisionHash(payload), sandboxSpec: payload.sandboxSpec };
}

/**
 * A rule that requires gVisor puts the gVisor spec into the payload (so the hash, the reviewer and
 * the execution all carry that level); where gVisor cannot run, the code is denied with the reason,
 * never run under a weaker level.
 */
function applySandboxRequirement(
  decision: PolicyDecision,
  input: JudgeInput,
): { decision: PolicyDecision; payload: RevisionPayload; requirementRefusal: string | null } {
  const current = input.payload.sandboxSpec;
  if (decision.sandbox !== "gvisor" || input.payload.kind !== "code" || current?.isolation === "gvisor") {
    return { decision, payload: input.payload, requirementRefusal: null };
  }
  const rule = decision.ruleId ? `Policy rule "${decision.ruleId}"` : "The policy";
  if (input.gvisor?.spec) return { decision, payload: { ...input.payload, sandboxSpec: input.gvisor.spec }, requirementRefusal: null };
  const reason = input.gvisor?.reason ?? "no gVisor detection was made";
  const refusal = `${rule} requires this code to run under gVisor, which cannot run here (${reason}); it is denied rather than run under a weaker sandbox.`;
  return {
    decision: { ...denied(refusal), ruleId: decision.ruleId, sandbox: "gvisor" },
    // Recorded (and hashed) as what the denied code would have run under: nothing.
    payload: { ...input.payload, sandboxSpec: { isolation: "none", reason } },
    requirementRefusal: refusal,
  };
}

/** SPEC invariant 2's hash of a stored or new revision. */
export function hashRevision(payload: RevisionPayload): PayloadHash {
  return revisionHash(payload);
}

/** A draft policy over many recorded inputs (the policy editor's dry run and rule test). */
export type DryRunInput = { policyJson: string; inputs: PolicyInput[] };

/** What the draft would decide for each input, with each rule's outcome. */
export function dryRunPolicy(input: DryRunInput): PolicyTrace[] {
  const policy = JSON.parse(input.policyJson) as Policy;
  return input.inputs.map((one) => tracePolicy(policy, one));
}

/** Recorded revisions, their stored JSON as text, to decide again under a draft (dry-run-policy.ts). */
export type ReplayInput = { policyJson: string; tenantDomains: string[]; revisions: RecordedRevisionText[] };

let recorded: typeof import("@/lib/policy/recorded-policy-inputs") | undefined;

/**
 * Loads what a replay rebuilds policy inputs with (the tool registry) once per thread, on its first
 * replay and before its budget starts (compute-worker.mjs): threads that never replay never load it.
 */
export async function loadReplay(): Promise<void> {
  recorded ??= await import("@/lib/policy/recorded-policy-inputs");
}

/**
 * What the draft would decide for each recorded revision: its stored arguments and snapshot parsed
 * and its policy input rebuilt here, since both grow with what was stored.
 */
export function replayRecordedPolicy(input: ReplayInput): PolicyTrace[] {
  if (!recorded) throw new Error("replayRecordedPolicy runs after loadReplay");
  const { recordedPolicyInput } = recorded;
  const policy = JSON.parse(input.policyJson) as Policy;
  return input.revisions.map((rev) => tracePolicy(policy, recordedPolicyInput(rev, input.tenantDomains)));
}

/**
 * A policy document to validate (validate-policy.ts): for a save, with the tenant's tools to check
 * it against; null for a stored version, read as it was saved.
 */
export type PolicyCheckInput = { document: unknown; tools: PolicyToolCatalogue | null };

/** Every rule's condition parsed and type-checked: grows with the document (up to 256 KB from the editor). */
export function checkPolicy({ document, tools }: PolicyCheckInput): PolicyValidationResult {
  if (tools === null) return validatePolicy(document, { forSave: false });
  return validatePolicy(document, { forSave: true, tools, codeTools: tools.tools.filter((t) => t.kind === "code").map((t) => t.name) });
}

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

/** An upstream MCP tool's arguments and its pinned input schema (as JSON text: parsed only when this thread has not compiled it yet). */
export type UpstreamArgsInput = { definitionHash: string; schemaJson: string; args: JsonObject };

/**
 * Checks arguments against an upstream tool's pinned JSON Schema (argument-validator.ts): a schema
 * may ask for formats, uniqueItems over objects and patterns whose cost grows with the arguments
 * (uniqueItems compares every pair). Null when they fit, else why not. Each thread compiles a
 * definition once.
 */
export function checkUpstreamArgs(input: UpstreamArgsInput): string | null {
  let result: ReturnType<ReturnType<typeof argumentCheck>>;
  try {
    result = argumentCheck(input.definitionHash, () => JSON.parse(input.schemaJson) as JsonObject)(input.args);
  } catch {
    return "the approved input schema cannot be compiled, so no arguments can be checked; an admin must review the tool";
  }
  // Ajv lists every failing item (allErrors): a refusal says what is wrong, not all of it.
  return result.valid ? null : result.message.length > 2_000 ? `${result.message.slice(0, 2_000)}…` : result.message;
}
