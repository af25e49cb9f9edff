import type { AuditActor } from "@/lib/audit/append-audit-event";
import type { Role } from "@/lib/generated/prisma/enums";

/** Who proposed an action: a signed-in member (via the console or an agent task) or an API key. */
export type Requester =
  | { type: "user"; userId: string; label: string; roles: Role[] }
  | { type: "api_key"; apiKeyId: string; label: string };

/**
 * Who runs an approved action: a member from the console, whom the claim itself checks may decide
 * in the action's tenant now; or the requester running its own action — its API key (the claim
 * refuses it once revoked) or the task runner. No default: every caller says which.
 */
export type Executor = { type: "member"; userId: string; sessionId: string | null } | { type: "requester" };

/**
 * A member deciding, editing or cancelling. Roles come from the database, never from the client.
 * `sessionId`: the console session they act in, which the act holds until it commits (an act of a
 * session that ended on the way is refused, lock-acting-membership.ts); null when they act another
 * way — a linked Slack account, or a script.
 */
/**
 * A member acting now. `sessionId`: the console session the act comes through (null for one that
 * comes another way); `slackUser`: the linked Slack user a vote from Slack comes through. Either
 * is held by the act until it commits (lock-acting-membership.ts).
 */
export type Member = { userId: string; label: string; roles: Role[]; sessionId: string | null; slackUser?: { teamId: string; userId: string } };

export function requesterAuditActor(requester: Requester): AuditActor {
  return requester.type === "user"
    ? { type: "user", id: requester.userId, label: requester.label }
    : { type: "api_key", id: requester.apiKeyId, label: requester.label };
}

export function memberAuditActor(member: Member): AuditActor {
  return { type: "user", id: member.userId, label: member.label };
}

export const SYSTEM_ACTOR: AuditActor = { type: "system", id: null, label: "countersign" };
