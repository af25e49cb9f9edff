import type { JsonObject } from "@/lib/canonical/json-value";
import { runCompute } from "@/lib/compute/compute-pool";
import { judgePayloadTask } from "@/lib/approvals/compute";
import { judgeScanned, type JudgeInput, type Judgement } from "@/lib/approvals/judge-payload";
import { fitsWithin, INLINE_CHARS } from "@/lib/compute/fits-within";
import type { Queryable } from "@/lib/db/sql";
import type { Policy } from "@/lib/policy/policy-document";
import { detectGvisor, detectSandbox } from "@/lib/sandbox/select-runner";
import type { ToolDefinition, ToolPreview } from "@/lib/tools/tool";
import type { ActivePolicy } from "@/lib/approvals/active-policy";
import { parseDatasetRefs, payloadColumns, type DatasetRef } from "@/lib/approvals/action-revision";
import type { BudgetTotalsInput } from "@/lib/policy/policy-budgets";

/** What the pooled judgement found (risk, verdict, hash), with what was read for it. */
export type Assessment = Judgement & {
  snapshot: JsonObject | null;
  preview: ToolPreview;
  /** Code: the data sets it mounts, with the hashes of their bytes as read now (hashed with the payload). */
  datasets: DatasetRef[];
  /** What was judged, for rejudgeWithBudgets. */
  judgeInput: JudgeInput;
};

export type AssessInput = {
  tenantId: string;
  tenantDomains: string[];
  tool: ToolDefinition;
  args: JsonObject;
  requesterRoles: string[];
  untrustedValues?: string[];
  /** The agent's stated reason: shown to reviewers, so checked for hidden text like the arguments. */
  reason?: string;
  policy: ActivePolicy;
  /** The revision being assessed (1 for a proposal). */
  revision: number;
  /** The budget totals the tool's rules read, read under their locks (a revision); absent, a rule reading one is denied until rejudged. */
  budgets?: BudgetTotalsInput;
};

/**
 * A tool's payload (not code) within INLINE_CHARS — arguments, reason, untrusted text and the
 * facts read for the policy — under a policy this small whose conditions for the tool are cheap
 * (inlineJudgeable) is judged in the request thread; anything else on the pool, with its budget.
 */
const INLINE_POLICY_CHARS = 16_384;

/**
 * A CEL condition whose cost the arguments' size does not bound: a regex (`matches` may backtrack
 * without end on a 40-character string) or more than one comprehension (nested, they multiply).
 */
const UNBOUNDED_CEL = /\bmatches\s*\(/;
const COMPREHENSION = /\.\s*(?:all|exists|exists_one|map|filter)\s*\(/g;
const inlineTools = new WeakMap<Policy, Map<string, boolean>>();

/** Whether the policy's conditions for `tool` are cheap for small arguments, so it may be judged inline. */
function inlineJudgeable(policy: Policy, tool: string): boolean {
  let byTool = inlineTools.get(policy);
  if (!byTool) inlineTools.set(policy, (byTool = new Map()));
  let safe = byTool.get(tool);
  if (safe === undefined) {
    const rules = Object.hasOwn(policy.tools, tool) ? policy.tools[tool].rules : [];
    safe = policyJson(policy).length <= INLINE_POLICY_CHARS
      && rules.every((rule) => !rule.when || (!UNBOUNDED_CEL.test(rule.when) && (rule.when.match(COMPREHENSION)?.length ?? 0) <= 1));
    byTool.set(tool, safe);
  }
  return safe;
}

// A policy version is serialised once for the compute pool (see JudgeInput's `policy`).
const policyJsonCache = new WeakMap<Policy, string>();

function policyJson(policy: Policy): string {
  let json = policyJsonCache.get(policy);
  if (json === undefined) {
    json = JSON.stringify(policy);
    policyJsonCache.set(policy, json);
  }
  return json;
}

/**
 * Everything the decision rests on for one payload: the TOCTOU snapshot, the preview, risk tags,
 * the policy's verdict, the payload hash, and for code the pre-scan and the sandbox spec it would
 * run under. What grows with the payload (pre-scan, risk tags, the policy's expressions over the
 * arguments, hashing) is one task on the compute pool; past its time budget the payload is
 * refused as `too_complex` before anything is written.
 */
export async function assessPayload(q: Queryable, input: AssessInput): Promise<Assessment> {
  const { tool, args, policy } = input;
  let sandboxSpec: JsonObject | null = null;
  let gvisor: JudgeInput["gvisor"];
  let refusal: string | null = null;

  if (tool.kind === "code") {
    const sandbox = await detectSandbox();
    // A rule of this tool may require gVisor: judgePayload swaps its spec in, or denies with why it cannot run.
    if (policy.policy.tools[tool.name]?.rules.some((rule) => rule.sandbox === "gvisor")) {
      const detected = await detectGvisor();
      gvisor = { spec: detected.spec ? { ...detected.spec } : null, reason: detected.reason };
    }
    if (sandbox.available && sandbox.spec) sandboxSpec = { ...sandbox.spec };
    else {
      refusal = `No sandbox is available to run code, so it is refused: ${sandbox.reason}`;
      // Recorded (and hashed) as what the denied code would have run under: nothing.
      sandboxSpec = { isolation: "none", reason: sandbox.reason };
    }
  }
  if (policy.invalid) refusal ??= `The tenant's policy (version ${policy.version}) is invalid, so everything is denied: ${policy.invalid}`;

  const snapshot = await tool.snapshot({ q, tenantId: input.tenantId }, args);
  const preview = tool.preview(args, snapshot);
  const stateFindings = tool.stateChecks?.(args, snapshot) ?? [];
  // A code tool's snapshot lists the data sets it mounts, as read now.
  const datasets = tool.kind === "code" ? parseDatasetRefs(snapshot?.datasets) : [];
  const { amountThresholdMinor: _threshold, ...policyFacts } = tool.policyContext?.(args, snapshot) ?? {};
  const judgeInput: JudgeInput = {
    code: tool.kind === "code" ? String(args.code ?? "") : null,
    bannedModules: policy.policy.bannedModules,
    risk: {
      tool: tool.name,
      toolClass: tool.classes,
      args,
      reason: input.reason,
      context: {
        customerVerifiedDomains: policyFacts.customerVerifiedDomains,
        tenantDomains: input.tenantDomains,
        untrustedValues: input.untrustedValues,
      },
    },
    policy: { json: policyJson(policy.policy), cacheKey: `${input.tenantId}:${policy.version}` },
    policyInput: {
      tool: tool.name,
      unlisted: tool.unlistedEffect,
      args,
      context: {
        ...policyFacts,
        requesterRoles: input.requesterRoles,
        tenantDomains: input.tenantDomains,
        customerVerifiedDomains: policyFacts.customerVerifiedDomains ?? [],
      },
      ...(input.budgets ? { budgets: input.budgets } : {}),
    },
    refusal,
    stateFindings,
    payload: {
      tenantId: input.tenantId, tool: tool.name, kind: tool.kind, ...payloadColumns(tool.kind, args, datasets),
      sandboxSpec, revision: input.revision, policyVersion: policy.version,
    },
    gvisor,
  };
  const inline = tool.kind !== "code" && inlineJudgeable(policy.policy, tool.name)
    && fitsWithin([args, input.reason ?? "", input.untrustedValues ?? [], policyFacts, stateFindings], INLINE_CHARS);
  const judged = inline
    ? judgeScanned(judgeInput, policy.policy, null)
    : await runCompute(judgePayloadTask, judgeInput, { what: tool.kind === "code" ? "code" : "payload" });
  return { snapshot, preview, datasets, ...judged, judgeInput };
}
