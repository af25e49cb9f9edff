/** Event types the console writes, for the explorer's type filter (the filter accepts any string). */
export const KNOWN_AUDIT_EVENT_TYPES = [
  "action.proposed", "action.denied", "action.refused", "action.revised", "action.expired", "action.invalidated", "action.cancelled",
  "action.edit_refused", "action.cancel_refused", "decision.recorded", "decision.refused",
  "execution.started", "execution.succeeded", "execution.failed", "execution.unknown", "execution.refused", "execution.recovering",
  "task.started", "task.completed", "task.failed", "task.cancelled",
  "api.refused", "api.execute_requested", "api_key.created", "api_key.revoked",
  "member.roles_changed", "member.roles_refused", "policy.saved", "policy.save_refused", "audit.exported",
  "account.password_changed", "account.password_change_refused",
] as const;
