import type { DbTx } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { ActionView } from "@/lib/api/schemas";
import { readScopedAction } from "@/lib/db/statements/actions/read-scoped-action";
import { isUuid } from "@/lib/db/uuid";
import { decodeStoredJson } from "@/lib/db/stored-text";
import { readCountingDecisions } from "@/lib/db/statements/actions/read-counting-decisions";
import { decisionsAsUsed } from "@/lib/review/decisions-as-used";

/** `apiKeyId`: the key whose own actions are visible; null for a member of the tenant (browser). */
export type ActionScope = { tenantId: string; actionId: string; apiKeyId: string | null };

const notFound = () => new AppError("not_found", "That action was not found.", 404);

/**
 * An action as the key that submitted it may see it. A key sees only its own actions: another
 * key's, another tenant's and unknown ids are all the same 404. A key revoked since it was
 * authenticated is refused here too (401), by the statement that reads the action.
 */
export async function findScopedAction(db: DbTx, scope: ActionScope) {
  if (!isUuid(scope.actionId)) throw notFound();
  const { keyRevoked, action: row } = await readScopedAction(db, scope);
  if (keyRevoked) throw new AppError("api_key_revoked", "That API key has been revoked.", 401);
  if (!row) throw notFound();
  // Expiry is by the database clock, reported as `expired` even before the sweeper marks the row.
  return { ...row, state: (row.expired ? "expired" : row.status) as ActionView["state"] };
}

export async function loadActionView(db: DbTx, scope: ActionScope): Promise<ActionView> {
  const own = await findScopedAction(db, scope);
  const action = await db.action.findFirstOrThrow({
    where: { id: own.id, tenantId: scope.tenantId },
    include: {
      // The revision the state was read with (an edit may have made a newer one since).
      revisions: { where: { revision: own.currentRevision } },
      decisions: { orderBy: { createdAt: "asc" }, include: { revision: { select: { revision: true } } } },
      executions: { orderBy: { startedAt: "desc" }, take: 1 },
    },
  });
  const revision = action.revisions[0];
  const reviewerIds = [...new Set(action.decisions.map((d) => d.reviewerId))];
  const reviewers = reviewerIds.length
    ? await db.user.findMany({ where: { id: { in: reviewerIds }, memberships: { some: { tenantId: scope.tenantId } } }, select: { id: true, name: true } })
    : [];
  const reviewerName = new Map(reviewers.map((r) => [r.id, r.name]));
  // While the decision still matters, approvals are counted by the claim's rule (approval-rules.ts); after it, as they were used.
  const counting = own.state === "pending" || own.state === "approved"
    ? await readCountingDecisions(db, { tenantId: scope.tenantId, actionIds: [action.id] })
    : decisionsAsUsed(action.decisions);
  const execution = action.executions[0];
  return {
    id: action.id,
    state: own.state,
    statusReason: own.expired ? "The approval window closed before a decision." : own.statusReason,
    kind: action.kind,
    tool: action.tool,
    args: action.kind === "tool" ? ((revision?.args as Record<string, unknown> | null) ?? null) : null,
    code: revision?.code ?? null,
    language: revision?.language ?? null,
    reason: action.reason,
    requester: action.requesterLabel,
    riskLevel: action.riskLevel,
    riskTags: Array.isArray(revision?.riskTags) ? (revision.riskTags as Array<Record<string, unknown>>) : [],
    revision: own.currentRevision,
    payloadHash: own.payloadHash,
    quorum: action.quorum,
    approvals: action.decisions.filter((d) => d.verdict === "approve" && !d.void && d.revisionId === revision?.id && counting.has(d.id)).length,
    expiresAt: own.expiresAt?.toISOString() ?? null,
    createdAt: action.createdAt.toISOString(),
    decidedAt: action.decidedAt?.toISOString() ?? null,
    decisions: action.decisions.map((d) => ({
      revision: d.revision.revision,
      verdict: d.verdict,
      note: d.note,
      reviewer: reviewerName.get(d.reviewerId) ?? "a reviewer",
      decidedAt: d.createdAt.toISOString(),
      void: d.void,
      counts: counting.has(d.id),
    })),
    execution: execution
      ? {
          id: execution.id,
          state: execution.status,
          isolation: execution.isolation,
          result: decodeStoredJson(execution.result as Record<string, unknown> | null) ?? null,
          exitCode: execution.exitCode,
          truncated: execution.truncated,
          durationMs: execution.durationMs,
          startedAt: execution.startedAt.toISOString(),
          finishedAt: execution.finishedAt?.toISOString() ?? null,
        }
      : null,
  };
}
