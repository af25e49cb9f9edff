import type { JsonObject } from "@/lib/canonical/json-value";
import type { PayloadHash } from "@/lib/canonical/payload-hash";
import { revisionHash, type RevisionPayload } from "@/lib/approvals/action-revision";
import { evaluatePolicy, type PolicyDecision, type PolicyInput } from "@/lib/policy/evaluate-policy";
import type { Policy } from "@/lib/policy/policy-document";
import type { BudgetTotalsInput } from "@/lib/policy/policy-budgets";
import { riskTagsFor, type RiskInput } from "@/lib/risk/risk-tags-for";
import { riskLevel, type RiskLevel, type RiskTag } from "@/lib/risk/risk-tag";
import type { ScanFinding, scanPython } from "@/lib/sandbox/prescan";
import type { StateFinding } from "@/lib/tools/tool";

type ScanResult = Awaited<ReturnType<typeof scanPython>>;

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
  policyInput: {
    tool: string; args: PolicyInput["args"]; context: Omit<PolicyInput["context"], "riskLevel" | "riskTags">; unlisted?: PolicyInput["unlisted"];
    /** The budget totals the tool's rules read, when read (a revision reads them under their locks first). */
    budgets?: BudgetTotalsInput;
  };
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
  /** Why the payload is refused whatever the policy says (code, no sandbox, broken policy), kept for rejudgeWithBudgets. */
  preRefusal: string | null;
  /** Why the arguments contradict their state, kept for rejudgeWithBudgets. */
  stateRefusal: string | null;
};

const denied = (reason: string): PolicyDecision => ({
  effect: "deny", ruleId: null, reason, quorum: 0, eligibleRoles: [], ttlSeconds: 0, tier: "critical",
});

/**
 * The judgement of a payload whose code, if any, was pre-scanned (`scan`): risk tags, the policy's
 * verdict under `policy` and the hash. Pure; cheap for a small tool payload (judged inline then,
 * assess-payload.ts), on the compute pool for anything else (compute-tasks.ts).
 */
export function judgeScanned(input: JudgeInput, policy: Policy, scan: ScanResult | null): Judgement {
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
  const pieces = { riskTags, riskLevel: level, preRefusal: refusal, stateRefusal };
  return { scanFindings, ...pieces, ...verdict(input, policy, pieces, null) };
}

/**
 * The judgement again with the budget totals read under their locks (lib/approvals/budgeted-proposals.ts):
 * only the policy's verdict can change; the hash is recomputed only if the deciding rule's sandbox does.
 */
export function rejudgeWithBudgets(input: JudgeInput, policy: Policy, judged: Judgement, budgets: BudgetTotalsInput): Judgement {
  const withTotals = { ...input, policyInput: { ...input.policyInput, budgets } };
  return { ...judged, ...verdict(withTotals, policy, judged, { sandboxSpec: judged.sandboxSpec, hash: judged.hash }) };
}

function verdict(
  input: JudgeInput,
  policy: Policy,
  { riskTags, riskLevel: level, preRefusal: refusal, stateRefusal }: Pick<Judgement, "riskTags" | "riskLevel" | "preRefusal" | "stateRefusal">,
  known: { sandboxSpec: JsonObject | null; hash: PayloadHash } | null,
): Pick<Judgement, "decision" | "refusal" | "hash" | "sandboxSpec"> {
  const byPolicy = refusal
    ? denied(refusal)
    : evaluatePolicy(policy, {
        ...input.policyInput,
        context: { ...input.policyInput.context, riskLevel: level, riskTags: riskTags.map((t) => t.id) },
      });
  // A policy that denies anyway keeps its rule and reason (the findings stay as tags).
  const decided = stateRefusal && byPolicy.effect !== "deny" ? denied(stateRefusal) : byPolicy;
  const { decision, payload, requirementRefusal } = applySandboxRequirement(decided, input);
  const finalRefusal = requirementRefusal ?? refusal ?? (decided === byPolicy ? null : stateRefusal);
  const hash = known && JSON.stringify(known.sandboxSpec) === JSON.stringify(payload.sandboxSpec) ? known.hash : revisionHash(payload);
  return { decision, refusal: finalRefusal, hash, sandboxSpec: payload.sandboxSpec };
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

