import type { JsonObject } from "@/lib/canonical/json-value";
import type { Queryable } from "@/lib/db/sql";
import { evaluatePolicy, type PolicyDecision } from "@/lib/policy/evaluate-policy";
import { riskLevel, type RiskLevel, type RiskTag } from "@/lib/risk/risk-tag";
import { riskTagsFor } from "@/lib/risk/risk-tags-for";
import { scanPython, type ScanFinding } from "@/lib/sandbox/prescan";
import { detectSandbox } from "@/lib/sandbox/select-runner";
import type { ToolDefinition, ToolPreview } from "@/lib/tools/tool";
import type { ActivePolicy } from "@/lib/approvals/active-policy";

export type Assessment = {
  snapshot: JsonObject | null;
  preview: ToolPreview;
  riskTags: RiskTag[];
  riskLevel: RiskLevel;
  decision: PolicyDecision;
  sandboxSpec: JsonObject | null;
  scanFindings: ScanFinding[];
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
};

const denied = (reason: string): PolicyDecision => ({
  effect: "deny", ruleId: null, reason, quorum: 0, eligibleRoles: [], ttlSeconds: 0, tier: "critical",
});

/**
 * Everything the decision rests on for one payload: the TOCTOU snapshot, the preview, risk tags,
 * the policy's verdict, and for code the pre-scan and the sandbox spec it would run under.
 */
export async function assessPayload(q: Queryable, input: AssessInput): Promise<Assessment> {
  const { tool, args } = input;
  let scanFindings: ScanFinding[] = [];
  let sandboxSpec: JsonObject | null = null;
  let refusal: string | null = null;

  if (tool.kind === "code") {
    const scan = await scanPython(String(args.code ?? ""), { bannedModules: input.policy.policy.bannedModules });
    if (scan.parseError) refusal = `The code does not parse: ${scan.parseError}`;
    else if (scan.blocked.length > 0) {
      refusal = `The code was blocked before review: ${scan.blocked.map((f) => `line ${f.line}: ${f.message}`).join("; ")}`;
    }
    scanFindings = [...scan.blocked, ...scan.findings];
    if (!refusal) {
      const sandbox = await detectSandbox();
      if (!sandbox.available || !sandbox.spec) refusal = `No sandbox is available to run code, so it is refused: ${sandbox.reason}`;
      else sandboxSpec = { ...sandbox.spec };
    }
  }
  if (input.policy.invalid) refusal ??= `The tenant's policy (version ${input.policy.version}) is invalid, so everything is denied: ${input.policy.invalid}`;

  const snapshot = await tool.snapshot({ q, tenantId: input.tenantId }, args);
  const preview = tool.preview(args, snapshot);
  const toolContext = tool.policyContext?.(args, snapshot) ?? {};
  const riskTags = riskTagsFor({
    tool: tool.name,
    toolClass: tool.classes,
    args,
    context: {
      customerVerifiedDomains: toolContext.customerVerifiedDomains,
      tenantDomains: input.tenantDomains,
      untrustedValues: input.untrustedValues,
    },
    scanFindings: scanFindings.map((f) => ({ rule: f.rule, line: f.line, message: f.message, severity: f.severity })),
  });
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
  return { snapshot, preview, riskTags, riskLevel: level, decision, sandboxSpec, scanFindings, refusal };
}
