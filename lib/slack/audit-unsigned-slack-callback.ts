import type { Db } from "@/lib/db/client";
import { flushedPerClient } from "@/lib/db/flush-on-signals";
import { isClosed } from "@/lib/db/sql";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { SYSTEM_ACTOR } from "@/lib/approvals/actors";
import { createFailureCoalescer } from "@/lib/auth/coalesce-failures";

/** Refusals before a callback is proven to come from the tenant's Slack app. */
export type UnsignedSlackRefusal = "bad_signature" | "old_timestamp" | "not_configured";

/** At most one `slack.callback_refused` per tenant and unsigned reason per this window, per process. */
export const UNSIGNED_SLACK_WINDOW_MS = 60_000;

export type UnsignedSlackCallbackAudit = {
  /** Counts one refused callback; the message of the window's first is the one recorded. */
  note(tenantId: string, reason: UnsignedSlackRefusal, message: string): void;
  flush(): Promise<void>;
};

type Detail = { tenantId: string; reason: UnsignedSlackRefusal; message: string };

/**
 * Callbacks refused before their signature is verified can come from anyone who knows the URL, at
 * line rate: coalesced in memory like refused API-key uses, one event per reason per minute with
 * the count. Refusals after the signature come from Slack itself and are audited one by one.
 */
export function createUnsignedSlackCallbackAudit(db: Db, options: { windowMs?: number } = {}): UnsignedSlackCallbackAudit {
  const coalescer = createFailureCoalescer<Detail>({
    windowMs: options.windowMs ?? UNSIGNED_SLACK_WINDOW_MS,
    maxKeys: 10_000,
    label: "refused Slack callbacks",
    write: async ({ detail, attempts, firstAt, lastAt, windowSeconds }) => {
      if (isClosed(db)) return;
      await appendAuditEvent(db, {
        tenantId: detail.tenantId, actor: SYSTEM_ACTOR, type: "slack.callback_refused", outcome: "refused",
        subject: { type: "slack", id: null }, actionId: null,
        data: {
          reason: detail.reason, message: detail.message, slackTeamId: null, slackUserId: null, actionId: null, attempts,
          coalesced: { windowSeconds, firstAt: firstAt.toISOString(), lastAt: lastAt.toISOString(), scope: "process" },
        },
      });
    },
  });
  return {
    note: (tenantId, reason, message) => coalescer.note(`${tenantId}\n${reason}`, { tenantId, reason, message }),
    flush: () => coalescer.flush(),
  };
}

/** The process's unsigned-callback audit for the client, flushed before it disconnects and on SIGTERM/SIGINT. */
export function unsignedSlackCallbackAuditFor(db: Db): UnsignedSlackCallbackAudit {
  return flushedPerClient("unsignedSlackCallbackAudit", db, () => createUnsignedSlackCallbackAudit(db));
}
