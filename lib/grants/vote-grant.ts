import { randomUUID } from "node:crypto";
import { auditTemplateOf, type AuditActor } from "@/lib/audit/append-audit-event";
import type { VoteGrant } from "@/lib/db/statements/actions/cast-vote";
import type { LockedAction } from "@/lib/db/statements/actions/lock-action";
import { GRANT_TTL_MAX_SECONDS } from "@/lib/policy/policy-document";
import { checkGrantTerms } from "@/lib/grants/grant-terms";

/**
 * The grant an approval carries, checked against the locked action it is approved from, with its
 * `grant.approved` event; null for a rejection or an approval of this action alone. Throws an
 * AppError (invalid_grant) for terms that do not fit the action.
 */
export function voteGrantOf(
  input: { tenantId: string; verdict: "approve" | "reject"; grant?: unknown },
  actor: AuditActor,
  action: LockedAction,
): VoteGrant | null {
  if (input.verdict !== "approve" || input.grant === undefined || input.grant === null) return null;
  const { terms, hash, scope } = checkGrantTerms({
    tenantId: input.tenantId, actionId: action.id, revision: action.currentRevision, tool: action.tool,
    apiKeyId: action.requesterApiKeyId, taskId: action.taskId, args: action.args,
  }, input.grant);
  const id = randomUUID();
  const approved = auditTemplateOf({
    tenantId: input.tenantId, actor, type: "grant.approved", outcome: "ok", subject: { type: "grant", id },
    actionId: action.id, tool: action.tool, riskLevel: action.riskLevel, requester: action.requesterLabel,
    data: { grantId: id, revision: action.currentRevision, termsHash: hash, ...terms, scope },
  }, ["expiresAt", "approvedBy"]);
  return { id, hash, terms, scope, maxTtlSeconds: GRANT_TTL_MAX_SECONDS, approved };
}
