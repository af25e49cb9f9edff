/**
 * The events a webhook endpoint can subscribe to, and which audit events raise them. Webhooks are
 * fed from the tenant's sealed audit log (the outbox's webhook channel, webhook-channel.ts), so a
 * change and the notice of it are committed together, and an event sealing refused (not written by
 * the console) is never announced.
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
 * The webhook channel's event mapping: the SQL condition (over an "AuditEvent" row aliased `e`)
 * under which an audit event raises `type`, kept beside the list so the two cannot drift. Only
 * literals: no input reaches it.
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
