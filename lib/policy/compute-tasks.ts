// Pure functions of plain data whose cost grows with the input: they run on the compute pool
// (lib/compute/compute-pool.ts) through the tasks declared in compute.ts beside this file.
import type { PolicyInput } from "@/lib/policy/evaluate-policy";
import type { Policy } from "@/lib/policy/policy-document";
import { tracePolicy, type PolicyTrace } from "@/lib/policy/trace-policy";
import type { PolicyToolCatalogue } from "@/lib/policy/policy-tool-catalogue";
import type { RecordedRevisionText } from "@/lib/policy/recorded-policy-inputs";
import { validatePolicy } from "@/lib/policy/validate-policy";
import type { PolicyValidationResult } from "@/lib/policy/compile-policy";

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
 * replay and before its budget starts (the task's `prepare`): threads that never replay never load it.
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
