import type { DbTx } from "@/lib/db/client";
import type { JsonObject } from "@/lib/canonical/json-value";
import { toolArgsOf } from "@/lib/approvals/action-revision";
import { isUpstreamToolName } from "@/lib/tools/tenant-tools";
import { findTool } from "@/lib/tools/registry";
import type { PolicyInput } from "./evaluate-policy";

/** A recorded action, with what the policy read when it was assessed, rebuilt from what was stored. */
export type RecordedPolicyInput = {
  actionId: string;
  tool: string;
  summary: string;
  createdAt: Date;
  revision: number;
  /** What was decided then, under the version then in force. */
  recorded: { effect: string; ruleId: string | null; policyVersion: number };
  input: PolicyInput;
};

const asObject = (v: unknown): JsonObject | null => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : null);

/**
 * The tenant's most recent actions (or the one named), each as the input its current revision's
 * policy decision read: the stored arguments, the state snapshot taken at request (for the tool's
 * facts such as a customer's verified domains), the stored risk level and tags, the tenant's
 * domains now, and the requesting member's roles now (every revision is assessed with them, as
 * proposeAction and createNextRevision do; none for an API key).
 */
export async function recordedPolicyInputs(db: DbTx, input: { tenantId: string; limit: number; actionId?: string }): Promise<RecordedPolicyInput[]> {
  const [tenant, actions] = await Promise.all([
    db.tenant.findUniqueOrThrow({ where: { id: input.tenantId }, select: { domains: true } }),
    db.action.findMany({
      where: { tenantId: input.tenantId, ...(input.actionId ? { id: input.actionId } : {}) },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: Math.max(1, Math.min(input.limit, 500)),
      select: {
        id: true, tool: true, kind: true, createdAt: true, requesterUserId: true, currentRevision: true,
        revisions: {
          orderBy: { revision: "desc" }, take: 1,
          select: {
            revision: true, args: true, code: true, language: true, policyVersion: true, policyDecision: true, riskLevel: true, riskTags: true, preview: true,
            snapshots: { where: { phase: "request" }, orderBy: { takenAt: "asc" }, take: 1, select: { data: true } },
          },
        },
      },
    }),
  ]);
  const userIds = [...new Set(actions.map((a) => a.requesterUserId).filter((id): id is string => id !== null))];
  const memberships = userIds.length
    // An active member's roles, as readRequesterRoles gives them to a new revision (a disabled account has none).
    ? await db.membership.findMany({ where: { tenantId: input.tenantId, userId: { in: userIds }, user: { disabledAt: null } }, select: { userId: true, roles: true } })
    : [];
  const rolesOf = new Map(memberships.map((m) => [m.userId, m.roles as string[]]));

  return actions.flatMap((action): RecordedPolicyInput[] => {
    const rev = action.revisions[0];
    if (!rev) return [];
    const args = toolArgsOf({ kind: action.kind, args: asObject(rev.args), code: rev.code, language: rev.language });
    const snapshot = asObject(rev.snapshots[0]?.data ?? null);
    const tool = isUpstreamToolName(action.tool) ? undefined : findTool(action.tool);
    let facts: Partial<PolicyInput["context"]> = {};
    try {
      const { amountThresholdMinor: _threshold, ...rest } = tool?.policyContext?.(args, snapshot) ?? {};
      facts = rest;
    } catch {
      // A recorded snapshot a tool no longer reads the same way: its facts stay absent (rules guarded with has() see that).
    }
    const decision = asObject(rev.policyDecision) ?? {};
    const riskTags = Array.isArray(rev.riskTags)
      ? rev.riskTags.flatMap((t) => (typeof t === "string" ? [t] : typeof asObject(t)?.id === "string" ? [String(asObject(t)?.id)] : []))
      : [];
    return [{
      actionId: action.id,
      tool: action.tool,
      summary: String(asObject(rev.preview)?.summary ?? action.tool),
      createdAt: action.createdAt,
      revision: rev.revision,
      recorded: { effect: String(decision.effect ?? "unknown"), ruleId: typeof decision.ruleId === "string" ? decision.ruleId : null, policyVersion: rev.policyVersion },
      input: {
        tool: action.tool,
        args,
        ...(isUpstreamToolName(action.tool) ? { unlisted: "require_approval" as const } : {}),
        context: {
          ...facts,
          requesterRoles: action.requesterUserId ? (rolesOf.get(action.requesterUserId) ?? []) : [],
          tenantDomains: tenant.domains,
          customerVerifiedDomains: facts.customerVerifiedDomains ?? [],
          riskLevel: rev.riskLevel,
          riskTags,
        },
      },
    }];
  });
}
