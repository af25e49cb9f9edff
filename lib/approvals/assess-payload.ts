import type { JsonObject } from "@/lib/canonical/json-value";
import type { PayloadHash } from "@/lib/canonical/payload-hash";
import { runCompute } from "@/lib/compute/compute-pool";
import type { Queryable } from "@/lib/db/sql";
import { evaluatePolicy, type PolicyDecision } from "@/lib/policy/evaluate-policy";
import { riskLevel, type RiskLevel, type RiskTag } from "@/lib/risk/risk-tag";
import type { ScanFinding } from "@/lib/sandbox/prescan";
import { detectSandbox } from "@/lib/sandbox/select-runner";
import type { ToolDefinition, ToolPreview } from "@/lib/tools/tool";
import type { ActivePolicy } from "@/lib/approvals/active-policy";
import { payloadColumns } from "@/lib/approvals/action-revision";

export type Assessment = {
  snapshot: JsonObject | null;
  preview: ToolPreview;
  riskTags: RiskTag[];
  riskLevel: RiskLevel;
  decision: PolicyDecision;
  sandboxSpec: JsonObject | null;
  scanFindings: ScanFinding[];
  /** The hash a decision on this revision binds to (SPEC invariant 2). */
  hash: PayloadHash;
  /** Set when the payload must never reach a human (blocked code, no sandbox, broken policy). */
  refusal: string | null;
};

export type AssessInput = {
  tenantId: string;
  tenantDomains: string[];
  tool: ToolDefinition;
  args: JsonObject;
  requesterRoles: string[];
  untrustedValues?: string[];
  policy: ActivePolicy;
  /** The revision being assessed (1 for a proposal). */
  revision: number;
};

const denied = (reason: string): PolicyDecision => ({
  effect: "deny", ruleId: null, reason, quorum: 0, eligibleRoles: [], ttlSeconds: 0, tier: "critical",
});

/**
 * Everything the decision rests on for one payload: the TOCTOU snapshot, the preview, risk tags,
 * the policy's verdict, the payload hash, and for code the pre-scan and the sandbox spec it would
 * run under. The work that grows with the payload (pre-scan, risk tags, hashing) runs on the
 * compute pool; past its time budget the payload is refused as `too_complex` before anything is
 * written.
 */
export async function assessPayload(q: Queryable, input: AssessInput): Promise<Assessment> {
  const { tool, args } = input;
  let sandboxSpec: JsonObject | null = null;
  let refusal: string | null = null;

  if (tool.kind === "code") {
    const sandbox = await detectSandbox();
    if (sandbox.available && sandbox.spec) sandboxSpec = { ...sandbox.spec };
    else {
      refusal = `No sandbox is available to run code, so it is refused: ${sandbox.reason}`;
      // Recorded (and hashed) as what the denied code would have run under: nothing.
      sandboxSpec = { isolation: "none", reason: sandbox.reason };
    }
  }

  const snapshot = await tool.snapshot({ q, tenantId: input.tenantId }, args);
  const preview = tool.preview(args, snapshot);
  const toolContext = tool.policyContext?.(args, snapshot) ?? {};
  const { scan, riskTags, hash } = await runCompute(
    "inspectPayload",
    {
      code: tool.kind === "code" ? String(args.code ?? "") : null,
      bannedModules: input.policy.policy.bannedModules,
      risk: {
        tool: tool.name,
        toolClass: tool.classes,
        args,
        context: {
          customerVerifiedDomains: toolContext.customerVerifiedDomains,
          tenantDomains: input.tenantDomains,
          untrustedValues: input.untrustedValues,
        },
      },
      payload: {
        tenantId: input.tenantId, tool: tool.name, kind: tool.kind, ...payloadColumns(tool.kind, args),
        sandboxSpec, revision: input.revision, policyVersion: input.policy.version,
      },
    },
    { what: tool.kind === "code" ? "code" : "payload" },
  );
  if (scan?.parseError) refusal = `The code does not parse: ${scan.parseError}`;
  else if (scan && scan.blocked.length > 0) {
    refusal = `The code was blocked before review: ${scan.blocked.map((f) => `line ${f.line}: ${f.message}`).join("; ")}`;
  }
  const scanFindings = scan ? [...scan.blocked, ...scan.findings] : [];
  if (input.policy.invalid) refusal ??= `The tenant's policy (version ${input.policy.version}) is invalid, so everything is denied: ${input.policy.invalid}`;

  const level = riskLevel(riskTags);
  const { amountThresholdMinor: _threshold, ...policyFacts } = toolContext;
  const decision = refusal
    ? denied(refusal)
    : evaluatePolicy(input.policy.policy, {
        tool: tool.name,
        args,
        context: {
          ...policyFacts,
          requesterRoles: input.requesterRoles,
          tenantDomains: input.tenantDomains,
          customerVerifiedDomains: toolContext.customerVerifiedDomains ?? [],
          riskLevel: level,
          riskTags: riskTags.map((t) => t.id),
        },
      });
  return { snapshot, preview, riskTags, riskLevel: level, decision, sandboxSpec, scanFindings, hash, refusal };
}
