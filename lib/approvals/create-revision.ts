import type { JsonObject } from "@/lib/canonical/json-value";
import type { DbTx } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { appendAuditEvent, type AuditActor } from "@/lib/audit/append-audit-event";
import { RISK_RANK } from "@/lib/risk/risk-tag";
import type { ToolDefinition } from "@/lib/tools/tool";
import { payloadColumns, revisionHash, toolArgsOf } from "@/lib/approvals/action-revision";
import { loadActivePolicy } from "@/lib/approvals/active-policy";
import { assessPayload } from "@/lib/approvals/assess-payload";
import { diffCode, diffFields, type PayloadDiff } from "@/lib/approvals/payload-diff";
import { snapshotHash } from "@/lib/approvals/snapshot-hash";

export type NextRevisionInput = {
  tenantId: string;
  actionId: string;
  /** The revision the caller based this on: a concurrent edit makes this fail, not fork. */
  fromRevision: number;
  tool: ToolDefinition;
  args: JsonObject;
  origin: string;
  createdByUserId: string | null;
  actor: AuditActor;
  /** For state-change re-proposals: the snapshot before and after, shown as the diff. */
  snapshotChange?: { before: JsonObject | null; after: JsonObject | null };
};

export type NextRevision = { revision: number; payloadHash: string; status: "pending" | "denied" | "approved"; expiresAt: Date | null };

/**
 * Revision n+1 of an action: the old revision is superseded and its votes void; the new payload
 * is assessed afresh (snapshot, risk, policy, hash) and needs its own approval. Runs inside the
 * caller's transaction, which must hold the action's row lock.
 */
export async function createNextRevision(tx: DbTx, input: NextRevisionInput): Promise<NextRevision> {
  const action = await tx.action.findFirst({
    where: { id: input.actionId, tenantId: input.tenantId },
    include: { revisions: { where: { revision: input.fromRevision } }, task: { select: { id: true } } },
  });
  if (!action) throw new AppError("not_found", "That action was not found.", 404);
  if (action.currentRevision !== input.fromRevision) {
    throw new AppError("stale_revision", `The action is at revision ${action.currentRevision} now; reload it and try again.`, 409);
  }
  const previous = action.revisions[0];
  const tenant = await tx.tenant.findUniqueOrThrow({ where: { id: input.tenantId }, select: { domains: true } });
  const policy = await loadActivePolicy(tx, input.tenantId);
  const assessment = await assessPayload(tx, {
    tenantId: input.tenantId, tenantDomains: tenant.domains, tool: input.tool, args: input.args,
    requesterRoles: [], policy,
  });
  const { decision } = assessment;
  const revision = input.fromRevision + 1;
  const isCode = input.tool.kind === "code";
  const columns = payloadColumns(input.tool.kind, input.args);
  const hash = revisionHash({
    tenantId: input.tenantId, tool: input.tool.name, kind: input.tool.kind, ...columns,
    sandboxSpec: assessment.sandboxSpec, revision, policyVersion: policy.version,
  });

  const previousArgs = toolArgsOf({
    kind: input.tool.kind, args: previous.args as JsonObject | null, code: previous.code, language: previous.language,
  });
  const diff: PayloadDiff = {
    fields: input.snapshotChange
      ? diffFields(input.snapshotChange.before, input.snapshotChange.after).map((c) => ({ ...c, path: `snapshot.${c.path}` }))
      : diffFields(isCode ? { language: previousArgs.language } : previousArgs, isCode ? { language: input.args.language ?? "python" } : input.args),
    ...(isCode ? { code: diffCode(String(previousArgs.code ?? ""), String(input.args.code ?? "")) } : {}),
  };

  const [{ now }] = await tx.$queryRaw<Array<{ now: Date }>>`SELECT date_trunc('milliseconds', now()) AS now`;
  const status = decision.effect === "deny" ? "denied" : decision.effect === "allow" ? "approved" : "pending";
  const expiresAt = decision.effect === "deny" ? null : new Date(now.getTime() + Math.max(decision.ttlSeconds, 300) * 1000);

  await tx.actionRevision.update({ where: { id: previous.id }, data: { status: "superseded" } });
  await tx.decision.updateMany({ where: { revisionId: previous.id }, data: { void: true } });
  const created = await tx.actionRevision.create({
    data: {
      tenantId: input.tenantId, actionId: action.id, revision,
      args: columns.args ?? undefined,
      code: columns.code,
      language: columns.language,
      sandboxSpec: assessment.sandboxSpec ?? undefined,
      policyVersion: policy.version, policyDecision: decision,
      payloadHash: hash.hash, hashAlgorithm: hash.algorithm, hashVersion: hash.version,
      riskTags: assessment.riskTags, riskLevel: assessment.riskLevel, preview: assessment.preview,
      scanFindings: assessment.scanFindings, diff, origin: input.origin, createdByUserId: input.createdByUserId,
    },
  });
  if (assessment.snapshot) {
    await tx.snapshot.create({
      data: {
        tenantId: input.tenantId, actionId: action.id, revisionId: created.id, phase: "request",
        data: assessment.snapshot, hash: snapshotHash(assessment.snapshot),
      },
    });
  }
  await tx.action.update({
    where: { id: action.id },
    data: {
      currentRevision: revision, payloadHash: hash.hash, status, approvals: 0,
      requiresApproval: decision.effect === "require_approval",
      riskLevel: assessment.riskLevel, riskRank: RISK_RANK[assessment.riskLevel],
      quorum: Math.max(1, decision.quorum), eligibleRoles: decision.eligibleRoles,
      expiresAt, consumedAt: null, decidedAt: decision.effect === "require_approval" ? null : now,
      statusReason: decision.reason,
    },
  });
  await appendAuditEvent(tx, {
    tenantId: input.tenantId, actor: input.actor, type: "action.revised", outcome: "ok",
    subject: { type: "action", id: action.id }, actionId: action.id, tool: input.tool.name,
    riskLevel: assessment.riskLevel, requester: action.requesterLabel, status,
    data: {
      fromRevision: input.fromRevision, revision, origin: input.origin, payloadHash: hash.hash,
      effect: decision.effect, ruleId: decision.ruleId, changedFields: diff.fields.map((f) => f.path),
    },
  });
  return { revision, payloadHash: hash.hash, status, expiresAt };
}
