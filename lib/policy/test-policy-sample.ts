import type { JsonObject } from "@/lib/canonical/json-value";
import { runCompute } from "@/lib/compute/compute-pool";
import { dryRunPolicyTask } from "@/lib/policy/compute";
import type { DbTx } from "@/lib/db/client";
import { AppError, describeInvalid, isAppError } from "@/lib/errors";
import { RISK_LEVELS } from "./policy-document";
import { findTenantTool } from "@/lib/tools/tenant-tools";
import { checkToolArgs } from "@/lib/tools/parse-tool-args";
import type { PolicyTrace } from "./trace-policy";
import { validDraftPolicy } from "./valid-draft-policy";
import { sampleBudgetTotals } from "@/lib/approvals/budgeted-proposals";

export type PolicySample = { tool: string; args: unknown; requesterRoles: string[]; riskLevel: (typeof RISK_LEVELS)[number]; riskTags: string[] };

/**
 * "Test this policy" on an admin's payload: arguments parsed and state read as for a proposal (the
 * invoice or customer must exist), then the draft decides, rule by rule. Risk is what the admin
 * says (no scan); nothing is written. Budgets read the organisation's totals now (sampleBudgetTotals).
 */
export async function testPolicySample(db: DbTx, input: { tenantId: string; document: unknown; sample: PolicySample }): Promise<PolicyTrace> {
  const policy = await validDraftPolicy(db, input.tenantId, input.document);
  const tool = await findTenantTool(db, input.tenantId, input.sample.tool);
  if (!tool) throw new AppError("unknown_tool", `There is no tool named ${input.sample.tool.slice(0, 64)} here; pick one from the list.`, 400);
  const parsed = await checkToolArgs(tool, input.sample.args);
  if (!parsed.success) throw new AppError("invalid_args", `The sample's arguments are not valid for ${tool.name}: ${describeInvalid(parsed.error)}`, 400);
  const args: JsonObject = parsed.data;
  let snapshot: JsonObject | null = null;
  try {
    snapshot = await tool.snapshot({ q: db, tenantId: input.tenantId }, args);
  } catch (error) {
    if (isAppError(error)) throw new AppError(error.code, `The sample names state that cannot be read: ${error.message}`, error.status);
    throw error;
  }
  const tenant = await db.tenant.findUniqueOrThrow({ where: { id: input.tenantId }, select: { domains: true } });
  const { amountThresholdMinor: _threshold, ...facts } = tool.policyContext?.(args, snapshot) ?? {};
  const budgets = await sampleBudgetTotals(db, { tenantId: input.tenantId, policy, tool: tool.name });
  const [trace] = await runCompute(dryRunPolicyTask,
    {
      policyJson: JSON.stringify(policy),
      inputs: [{
        tool: tool.name, args, unlisted: tool.unlistedEffect, ...(budgets ? { budgets } : {}),
        context: {
          ...facts, requesterRoles: input.sample.requesterRoles, tenantDomains: tenant.domains,
          customerVerifiedDomains: facts.customerVerifiedDomains ?? [], riskLevel: input.sample.riskLevel, riskTags: input.sample.riskTags,
        },
      }],
    },
    { what: "policy test" },
  );
  if (!trace) throw new Error("the policy test returned nothing");
  return trace;
}
