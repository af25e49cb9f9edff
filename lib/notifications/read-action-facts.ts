import type { Db } from "@/lib/db/client";
import type { JsonObject } from "@/lib/canonical/json-value";
import { findTool } from "@/lib/tools/registry";
import type { ActionFacts } from "@/lib/notifications/render-reviewer-email";

export type FactsRequest = { id: string; tenantId: string; actionId: string; revision: number; reason: ActionFacts["reason"] };

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * What the emails for these outbox rows say, read when they are sent: only rows whose action is
 * still pending at the revision they announce get facts (the rest are skipped, not sent stale).
 * The amount is the tool's own (its policy context), in the invoice's currency.
 */
export async function readActionFacts(db: Db, rows: FactsRequest[]): Promise<Map<string, ActionFacts>> {
  const actions = await db.action.findMany({
    where: { id: { in: [...new Set(rows.map((row) => row.actionId))] }, status: "pending" },
    select: {
      id: true, tenantId: true, tool: true, currentRevision: true, riskLevel: true, expiresAt: true, requesterLabel: true,
      tenant: { select: { name: true } },
      revisions: {
        select: { revision: true, args: true, preview: true, riskTags: true, createdAt: true, policyDecision: true, snapshots: { where: { phase: "request" }, select: { data: true }, take: 1 } },
        orderBy: { revision: "desc" }, take: 1,
      },
    },
  });
  const byId = new Map(actions.map((action) => [action.id, action]));
  const out = new Map<string, ActionFacts>();
  for (const row of rows) {
    const action = byId.get(row.actionId);
    const revision = action?.revisions[0];
    if (!action || !revision || action.tenantId !== row.tenantId || action.currentRevision !== row.revision || revision.revision !== row.revision) continue;
    const args = isObject(revision.args) ? revision.args : {};
    const snapshot = isObject(revision.snapshots[0]?.data) ? (revision.snapshots[0].data as JsonObject) : null;
    const tool = findTool(action.tool);
    let amountMinor: number | null = null;
    try {
      const amount = tool?.policyContext?.(args, snapshot)?.amountMinor;
      amountMinor = typeof amount === "number" ? amount : null;
    } catch {
      amountMinor = null;
    }
    const preview = isObject(revision.preview) ? revision.preview : {};
    const riskTags = Array.isArray(revision.riskTags)
      ? revision.riskTags.flatMap((tag) => (isObject(tag) && typeof tag.id === "string" ? [tag.id] : typeof tag === "string" ? [tag] : []))
      : [];
    const decision = isObject(revision.policyDecision) ? revision.policyDecision : {};
    const escalate = isObject(decision.escalate) ? decision.escalate : {};
    out.set(row.id, {
      actionId: action.id,
      tenantName: action.tenant.name,
      tool: action.tool,
      summary: typeof preview.summary === "string" ? preview.summary : action.tool,
      riskLevel: action.riskLevel,
      riskTags,
      amountMinor,
      currency: typeof snapshot?.currency === "string" ? snapshot.currency : "USD",
      expiresAt: action.expiresAt,
      requester: action.requesterLabel,
      reason: row.reason,
      waitedSeconds: typeof escalate.afterSeconds === "number" ? escalate.afterSeconds : null,
    });
  }
  return out;
}
