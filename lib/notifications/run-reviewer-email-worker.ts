import { createHash } from "node:crypto";
import type { Db } from "@/lib/db/client";
import { ensureNotificationCursors } from "@/lib/db/statements/notifications/ensure-notification-cursors";
import { enqueueReviewerEmails } from "@/lib/db/statements/notifications/enqueue-reviewer-emails";
import { leaseReviewerEmails, type LeasedReviewerEmail } from "@/lib/db/statements/notifications/lease-reviewer-emails";
import { recordReviewerEmailAttempt } from "@/lib/db/statements/notifications/record-reviewer-email-attempt";
import { readActionFacts } from "@/lib/notifications/read-action-facts";
import { readStillAskedEmails } from "@/lib/db/statements/notifications/read-still-asked-emails";
import { renderDigestEmail, renderImmediateEmail, type RenderedEmail } from "@/lib/notifications/render-reviewer-email";
import { reviewerEmailSettings } from "@/lib/notifications/reviewer-email-settings";
import { sendSmtp } from "@/lib/notifications/send-smtp";
import { sweepActionReminders } from "@/lib/notifications/sweep-action-reminders";
import { retryDelayMs } from "@/lib/webhooks/webhook-settings";
import { runPumpLoop } from "@/lib/outbox/run-pump-loop";

/** The emails a lease makes: each immediate row alone, a member's digest rows of one tenant together. */
function groupIntoEmails(rows: LeasedReviewerEmail[]): LeasedReviewerEmail[][] {
  const digests = new Map<string, LeasedReviewerEmail[]>();
  const emails: LeasedReviewerEmail[][] = [];
  for (const row of rows) {
    if (row.mode === "immediate") emails.push([row]);
    else {
      const key = `${row.tenantId}:${row.userId}`;
      const group = digests.get(key) ?? [];
      if (group.length === 0) digests.set(key, group);
      group.push(row);
    }
  }
  return [...emails, ...digests.values()];
}

function messageIdOf(rows: LeasedReviewerEmail[]): string {
  const ids = rows.map((row) => row.id).sort();
  const local = ids.length === 1 ? `reviewer-${ids[0]}` : `digest-${createHash("sha256").update(ids.join(",")).digest("hex").slice(0, 32)}`;
  return `<${local}@countersign>`;
}

/** One email of one or more leased rows: render from the action as it is now, send, record. */
async function attempt(db: Db, workerId: string, rows: LeasedReviewerEmail[], smtpUrl: string): Promise<void> {
  const settings = reviewerEmailSettings();
  const ids = rows.map((row) => row.id);
  const retryAfterSeconds = retryDelayMs(Math.max(...rows.map((row) => row.attempts)), settings.retryBaseMs) / 1000;
  let email: RenderedEmail | null = null;
  try {
    // Sent only if the member is still asked (an offboarded member, or one who voted since, is not).
    const asked = await readStillAskedEmails(db, { ids });
    const facts = await readActionFacts(db, rows.filter((row) => asked.has(row.id)));
    const live = rows.filter((row) => facts.has(row.id));
    const stale = rows.filter((row) => !facts.has(row.id)).map((row) => row.id);
    if (stale.length > 0) await recordReviewerEmailAttempt(db, { ids: stale, workerId, outcome: "skipped", error: null, retryAfterSeconds: 0 });
    if (live.length === 0) return;
    const items = live.flatMap((row) => facts.get(row.id) ?? []);
    // A digest lists each action once, as its latest ask puts it (one may be asked again within a period).
    email = live[0].mode === "digest"
      ? renderDigestEmail([...new Map(items.map((item) => [item.actionId, item])).values()], settings.consoleUrl)
      : renderImmediateEmail(items[0], settings.consoleUrl);
    const sent = await sendSmtp({ smtpUrl, from: settings.from, to: live[0].toAddress, messageId: messageIdOf(live), email, timeoutMs: settings.timeoutMs });
    const liveIds = live.map((row) => row.id);
    await recordReviewerEmailAttempt(db, {
      ids: liveIds, workerId, outcome: sent.ok ? "sent" : "retry", error: sent.ok ? null : sent.error, retryAfterSeconds,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message.slice(0, 300) : "The email could not be prepared.";
    await recordReviewerEmailAttempt(db, { ids, workerId, outcome: "retry", error: message, retryAfterSeconds });
  }
}

/**
 * One pass of reviewer email: fire due escalations and expiry warnings, turn newly sealed audit
 * events into outbox rows, then — when SMTP_URL is set — send what is due (the outbox table keeps
 * them otherwise). `now` moves the clock for the reminders and the lease (tests); by default the
 * database's. Returns how many rows were added and emails attempted.
 */
export async function pumpReviewerEmails(
  db: Db,
  options: { workerId: string; now?: Date; limit?: number },
): Promise<{ reminders: number; added: number; attempted: number }> {
  const settings = reviewerEmailSettings();
  const reminders = await sweepActionReminders(db, { now: options.now });
  await ensureNotificationCursors(db);
  const added = await enqueueReviewerEmails(db, { batch: 1000, digestSeconds: settings.digestSeconds, retryWindowSeconds: settings.retryWindowSeconds });
  const smtpUrl = settings.smtpUrl;
  if (!smtpUrl) return { reminders, added, attempted: 0 };
  const leased = await leaseReviewerEmails(db, {
    workerId: options.workerId, leaseSeconds: Math.ceil((settings.timeoutMs * 3) / 1000) + 30, limit: options.limit ?? 16, now: options.now ?? null,
  });
  const emails = groupIntoEmails(leased);
  await Promise.all(emails.map((rows) => attempt(db, options.workerId, rows, smtpUrl)));
  return { reminders, added, attempted: emails.length };
}

/**
 * The reviewer-email worker: pumps every `pollMs` until the signal aborts. Every console and
 * every `npm run worker` runs one; leases keep them from sending a row twice at once, and the
 * reminders' unique keys from firing one twice.
 */
export async function runReviewerEmailWorker(options: { db: Db; signal?: AbortSignal; pollMs?: number; workerId?: string }): Promise<void> {
  await runPumpLoop({
    name: "email", pollMs: options.pollMs ?? 2000, signal: options.signal, workerId: options.workerId,
    pump: (workerId) => pumpReviewerEmails(options.db, { workerId }),
  });
}
