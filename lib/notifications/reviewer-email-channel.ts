import { createHash } from "node:crypto";
import { Prisma } from "@/lib/generated/prisma/client";
import type { Db } from "@/lib/db/client";
import { memberStillAskedSql } from "@/lib/db/statements/notifications/reviewer-ask-rules";
import { eventCaseSql } from "@/lib/db/statements/outbox/outbox-channel-sql";
import type { Channel } from "@/lib/outbox/channel";
import { outboxChannel } from "@/lib/outbox/pump-channel";
import { readActionFacts } from "@/lib/notifications/read-action-facts";
import { renderDigestEmail, renderImmediateEmail, type ActionFacts, type RenderedEmail } from "@/lib/notifications/render-reviewer-email";
import { reviewerEmailSettings } from "@/lib/notifications/reviewer-email-settings";
import { sendSmtp } from "@/lib/notifications/send-smtp";
import { sweepActionReminders } from "@/lib/notifications/sweep-action-reminders";

export const REVIEWER_EMAIL_CHANNEL = "reviewer_email";

type Recipient = { facts: ActionFacts; toAddress: string };
type Message = { to: string; messageId: string; email: RenderedEmail };

// The member asked by a queued row `d` (its payload), and the escalation's role read from the audit
// event it reports: what the send's claim re-checks by the rule that queued it.
const STILL_ASKED = Prisma.sql`EXISTS (
    SELECT 1 FROM (SELECT (d.payload->>'userId')::uuid AS "userId", (d.payload->>'revision')::int AS revision,
      (SELECT ARRAY[ev.data->>'role'] FROM "AuditSeal" s JOIN "AuditEvent" ev ON ev.id = s."eventId"
        WHERE d.payload->>'reason' = 'escalated' AND s."tenantId" = d."tenantId" AND s.seq = d."auditSeq") AS roles) asked
    JOIN "Action" a ON a.id = d."actionId" AND a."tenantId" = d."tenantId" AND a.status = 'pending' AND a."currentRevision" = asked.revision
    JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = asked.revision
    WHERE ${memberStillAskedSql(Prisma.sql`asked."userId"`, Prisma.sql`asked.roles`)})`;

/**
 * Reviewer emails: an action that starts waiting, is escalated, warned of expiry or reopened asks
 * each member the vote would accept (reviewer-ask-rules.ts), one row per ask. A digest member's
 * rows share a batch key and go as one email at the period's end. SMTP cannot honour a key: a send
 * cut off by a crash is `unknown`; a 5xx reply is final.
 */
const reviewerEmail: Channel<Recipient, Message> = {
  sql: {
    channel: REVIEWER_EMAIL_CHANNEL,
    eventSql: eventCaseSql({
      pending: `(e.type = 'action.proposed' AND e.status = 'pending') OR e.type = 'action.revised'`,
      escalated: `e.type = 'action.escalated'`,
      expiry_warning: `e.type = 'action.expiry_warned'`,
      reopened: `e.type = 'action.reopened'`,
    }),
    deliveriesSql: Prisma.sql`
      SELECT k."tenantId", k."subscriptionId", k.seq AS "auditSeq", k."actionId",
        concat_ws(':', k."actionId"::text, k.revision::text, m."userId"::text, k.event, k.seq::text) AS "dedupeKey",
        CASE WHEN m."emailMode" = 'digest' THEN 'digest:' || k."tenantId"::text || ':' || m."userId"::text END AS "batchKey",
        CASE WHEN m."emailMode" = 'digest'
          THEN date_bin(make_interval(secs => (p.v->>'digestSeconds')::int), now(), TIMESTAMPTZ '2000-01-01 00:00:00+00') + make_interval(secs => (p.v->>'digestSeconds')::int)
          ELSE now() END AS "nextAttemptAt",
        jsonb_build_object('actionId', k."actionId", 'revision', k.revision, 'userId', m."userId", 'toAddress', u.email, 'reason', k.event,
          'mode', m."emailMode"::text) AS payload
      FROM params p, (
        SELECT l."tenantId", l."subscriptionId", l.seq, l."actionId", l.event, (l.data->>'revision')::int AS revision,
          CASE WHEN l.event = 'escalated' THEN ARRAY[l.data->>'role'] END AS roles
        FROM leaves l
        WHERE l.event IS NOT NULL AND l."actionId" IS NOT NULL AND l.data ? 'revision'
          -- Reopened twice before this pass: asked once, by the later event.
          AND NOT (l.event = 'reopened' AND EXISTS (SELECT 1 FROM leaves later WHERE later."tenantId" = l."tenantId"
            AND later."actionId" = l."actionId" AND later.event = 'reopened' AND later.data->>'revision' = l.data->>'revision' AND later.seq > l.seq))
      ) k
      JOIN "Action" a ON a.id = k."actionId" AND a."tenantId" = k."tenantId" AND a.status = 'pending' AND a."currentRevision" = k.revision
      JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = k.revision
      JOIN "Membership" m ON m."tenantId" = k."tenantId" AND m.roles::text[] && COALESCE(k.roles, r."eligibleRoles"::text[])
      JOIN "User" u ON u.id = m."userId"
      WHERE ${memberStillAskedSql(Prisma.sql`m."userId"`, Prisma.sql`k.roles`)}`,
    subscriptionLiveSql: Prisma.sql`true`,
    stillWantedSql: STILL_ASKED,
    onRepeat: "ignore",
    afterCrash: "unknown",
  },
  cursors: "per_tenant",
  statusLabels: {},
  resendable: ["failed", "unknown"],
  retry: () => reviewerEmailSettings().retry,
  params: () => ({ digestSeconds: reviewerEmailSettings().digestSeconds }),
  enabled: () => Boolean(reviewerEmailSettings().smtpUrl),

  async address(db: Db, rows) {
    const facts = await readActionFacts(db, rows.map((row) => ({
      id: row.id, tenantId: row.tenantId, actionId: String(row.payload.actionId), revision: Number(row.payload.revision),
      reason: row.payload.reason as ActionFacts["reason"],
    })));
    return rows.map((row) => {
      const found = facts.get(row.id);
      return found ? { row, recipient: { facts: found, toAddress: String(row.payload.toAddress) } } : { row, skip: null };
    });
  },

  render(items) {
    const { consoleUrl } = reviewerEmailSettings();
    const ids = items.map((item) => item.row.id).sort();
    if (items[0].row.batchKey === null) {
      return { to: items[0].recipient.toAddress, messageId: `<reviewer-${ids[0]}@countersign>`, email: renderImmediateEmail(items[0].recipient.facts, consoleUrl) };
    }
    // A digest lists each action once, as its latest ask puts it (one may be asked again within a period).
    const latest = new Map([...items].sort((a, b) => Number(BigInt(a.row.auditSeq) - BigInt(b.row.auditSeq))).map((item) => [item.recipient.facts.actionId, item.recipient.facts]));
    return {
      to: items[0].recipient.toAddress,
      messageId: `<digest-${createHash("sha256").update(ids.join(",")).digest("hex").slice(0, 32)}@countersign>`,
      email: renderDigestEmail([...latest.values()], consoleUrl),
    };
  },

  async deliver(message) {
    const settings = reviewerEmailSettings();
    if (!settings.smtpUrl) return { ok: false, error: "SMTP_URL is not set.", code: null };
    const sent = await sendSmtp({ smtpUrl: settings.smtpUrl, from: settings.from, to: message.to, messageId: message.messageId, email: message.email, timeoutMs: settings.timeoutMs });
    return sent.ok ? { ok: true } : { ok: false, error: sent.error, code: sent.code };
  },

  // A 5xx reply is the server's final word (RFC 5321); a 4xx or no reply may pass.
  retries: (failure) => !(typeof failure.code === "number" && failure.code >= 500 && failure.code < 600),
};

export const reviewerEmailChannel = outboxChannel(reviewerEmail);

/**
 * One pass: fire due reminders, queue the asks of newly sealed events, then send what is due when
 * SMTP_URL is set (else the outbox keeps it). `now` moves the clock for tests.
 */
export async function pumpReviewerEmails(
  db: Db,
  options: { workerId: string; now?: Date; limit?: number },
): Promise<{ reminders: number; added: number; attempted: number }> {
  const reminders = await sweepActionReminders(db, { now: options.now });
  return { reminders, ...(await reviewerEmailChannel.pump(db, options)) };
}
