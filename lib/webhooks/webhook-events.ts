/**
 * The events a webhook endpoint can subscribe to, and the audit events that raise them: fed from
 * the sealed log, so a change and its notice commit together and nothing refused is announced.
 */
export const WEBHOOK_EVENT_TYPES = [
  "action.pending",
  "action.decided",
  "action.escalated",
  "action.expired",
  "action.executed",
  "action.failed",
  "action.invalidated",
  "task.finished",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const WEBHOOK_EVENT_LABELS: Record<WebhookEventType, string> = {
  "action.pending": "waits for review",
  "action.decided": "approved or rejected",
  "action.escalated": "escalated after waiting (policy escalate)",
  "action.expired": "expired undecided or unexecuted",
  "action.executed": "executed",
  "action.failed": "execution failed or ended unknown",
  "action.invalidated": "approval invalidated",
  "task.finished": "task completed or failed",
};

/**
 * The SQL condition (over "AuditEvent" `e`) under which an event raises each type, kept beside
 * the list so the two cannot drift. Literals only.
 */
export const WEBHOOK_EVENT_SOURCES: Record<WebhookEventType, string> = {
  "action.pending": `(e.type = 'action.proposed' AND e.status = 'pending') OR e.type IN ('action.revised', 'action.reopened')`,
  "action.decided": `(e.type = 'decision.recorded' AND e.status IN ('approved', 'rejected')) OR e.type = 'action.reapproved'`,
  "action.escalated": `e.type = 'action.escalated'`,
  "action.expired": `e.type = 'action.expired'`,
  "action.executed": `e.type = 'execution.succeeded'`,
  "action.failed": `e.type IN ('execution.failed', 'execution.unknown')`,
  "action.invalidated": `e.type = 'action.invalidated'`,
  "task.finished": `e.type IN ('task.completed', 'task.failed')`,
};

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}
