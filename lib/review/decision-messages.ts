/**
 * Refusal codes from the approval core, in words a reviewer understands, with what to do next.
 * The server's own message is used for codes not listed here.
 */
const MESSAGES: Record<string, string> = {
  stale_hash: "This action changed since you opened it, so nothing was recorded. Reload the page and review the current revision.",
  stale_revision: "This action changed since you opened it, so nothing was recorded. Reload the page and review the current revision.",
  state_changed:
    "The state this action rests on changed since it was requested, so your approval was not recorded. Re-read the state, then decide the new revision.",
  already_voted:
    "You have already voted on this revision. Your second vote does not count — another reviewer must add the next approval.",
  self_approval: "You requested this action, so you cannot decide it. Another reviewer must.",
  self_edit: "You requested this action, so you cannot edit it. Ask your agent for a new proposal instead.",
  own_edit: "You wrote this revision, so another reviewer must decide it.",
  not_eligible: "Your roles do not make you an eligible reviewer for this action.",
  forbidden: "Your roles in this organisation do not allow deciding actions. Nothing was recorded.",
  unauthenticated: "Your session has ended. Sign in again to continue.",
  reason_required: "Write a reason for the rejection; it is sent back to the agent.",
  expired: "This action expired before it was decided. The agent is told it expired.",
  not_found: "This action was not found in this organisation.",
  not_editable: "This action can no longer be edited.",
};

export function decisionErrorMessage(error: { code: string; message: string }): string {
  if (error.code === "not_pending") return `${error.message} Reload to see its current state.`;
  return MESSAGES[error.code] ?? error.message;
}
