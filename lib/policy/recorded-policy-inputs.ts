import type { JsonObject } from "@/lib/canonical/json-value";
import { toolArgsOf } from "@/lib/approvals/action-revision";
import type { RecordedRevision } from "@/lib/db/statements/actions/read-recorded-revisions";
import { isUpstreamToolName } from "@/lib/tools/tenant-tools";
import { findTool } from "@/lib/tools/registry";
import type { PolicyInput } from "./evaluate-policy";
import type { BudgetTotalsInput } from "./policy-budgets";

/** What of a recorded revision the policy's input is rebuilt from (its JSON columns still as text). */
export type RecordedRevisionText = Pick<
  RecordedRevision, "tool" | "kind" | "argsText" | "code" | "language" | "riskLevel" | "riskTagsText" | "snapshotText" | "requesterRoles"
> & { budgets?: BudgetTotalsInput };

const asObject = (v: unknown): JsonObject | null => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : null);

/**
 * The input a recorded revision's decision read, rebuilt from what was stored (arguments, the
 * snapshot at request, risk), with the tenant's domains and the requester's roles now. Parses the
 * stored JSON: runs on the compute pool.
 */
export function recordedPolicyInput(rev: RecordedRevisionText, tenantDomains: string[]): PolicyInput {
  const args = toolArgsOf({ kind: rev.kind, args: asObject(rev.argsText === null ? null : JSON.parse(rev.argsText)), code: rev.code, language: rev.language });
  const snapshot = asObject(rev.snapshotText === null ? null : JSON.parse(rev.snapshotText));
  const upstream = isUpstreamToolName(rev.tool);
  const tool = upstream ? undefined : findTool(rev.tool);
  let facts: Partial<PolicyInput["context"]> = {};
  try {
    const { amountThresholdMinor: _threshold, ...rest } = tool?.policyContext?.(args, snapshot) ?? {};
    facts = rest;
  } catch {
    // A recorded snapshot a tool no longer reads the same way: its facts stay absent (rules guarded with has() see that).
  }
  const storedTags: unknown = JSON.parse(rev.riskTagsText);
  const riskTags = Array.isArray(storedTags)
    ? storedTags.flatMap((t) => (typeof t === "string" ? [t] : typeof asObject(t)?.id === "string" ? [String(asObject(t)?.id)] : []))
    : [];
  return {
    tool: rev.tool,
    args,
    ...(upstream ? { unlisted: "require_approval" as const } : {}),
    ...(rev.budgets ? { budgets: rev.budgets } : {}),
    context: {
      ...facts,
      requesterRoles: rev.requesterRoles,
      tenantDomains,
      customerVerifiedDomains: facts.customerVerifiedDomains ?? [],
      riskLevel: rev.riskLevel,
      riskTags,
    },
  };
}
