import type { Db } from "@/lib/db/client";
import { flushedPerClient } from "@/lib/db/flush-on-signals";
import { isClosed } from "@/lib/db/sql";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import type { AuditEventData } from "@/lib/audit/audit-event-types";
import { clientKeyFor } from "@/lib/auth/client-address";
import { createFailureCoalescer, type CoalescedFailure } from "@/lib/auth/coalesce-failures";

type FailedData = AuditEventData<"auth.sign_in_failed">;
export type SignInFailureReason = FailedData["reason"];

export type SignInFailure = {
  email: string;
  method: FailedData["method"];
  /** `no_membership`: written as `disabled` when the account is disabled, and nowhere otherwise (no tenant to write to). */
  reason: SignInFailureReason | "no_membership";
  clientAddress: string | null;
};

/** Throttled attempts are coalesced per account and client class for this long. */
export const THROTTLED_SIGN_IN_WINDOW_MS = 60_000;

/**
 * Records a refused sign-in as `auth.sign_in_failed` (reason class and client, never the password)
 * in every tenant of the account; an email without account or membership has no log to hold it
 * (it is still throttled and counted). Returns how many events were written.
 */
export async function auditSignInFailure(
  db: Db,
  failure: SignInFailure,
  coalesced?: Omit<CoalescedFailure<unknown>, "detail">,
): Promise<number> {
  const email = failure.email.trim().toLowerCase();
  if (email === "") return 0;
  const user = await db.user.findUnique({
    where: { email },
    select: { id: true, email: true, disabledAt: true, memberships: { select: { tenantId: true }, orderBy: { tenantId: "asc" } } },
  });
  if (!user) return 0;
  const reason = failure.reason === "no_membership" ? (user.disabledAt ? "disabled" : null) : failure.reason;
  if (!reason) return 0;
  const data: FailedData = {
    method: failure.method, reason, clientAddress: failure.clientAddress, clientKey: clientKeyFor(failure.clientAddress),
    attempts: coalesced?.attempts ?? 1,
    ...(coalesced && {
      coalesced: {
        windowSeconds: coalesced.windowSeconds, firstAt: coalesced.firstAt.toISOString(), lastAt: coalesced.lastAt.toISOString(), scope: "process" as const,
      },
    }),
  };
  for (const { tenantId } of user.memberships) {
    await appendAuditEvent(db, {
      tenantId, actor: { type: "user", id: user.id, label: user.email }, type: "auth.sign_in_failed", outcome: "refused",
      subject: { type: "user", id: user.id }, requester: user.email, status: reason, data,
    });
  }
  return user.memberships.length;
}

export type SignInFailureAudit = {
  /** Audits one refused attempt off the caller's path (see below). */
  failed(failure: SignInFailure): void;
  /** Counts a throttled attempt; one event per account and client class per minute says how many. */
  throttled(failure: Omit<SignInFailure, "reason">): void;
  /** Writes what is pending and waits for every write started so far. */
  flush(): Promise<void>;
};

/**
 * Sign-in failures are audited best effort, off the sign-in's path, so a refusal's time does not
 * say whether the email has an account; a failed write is logged and the refusal stands. Throttled
 * attempts are coalesced (createFailureCoalescer): one event per client class per minute, counted.
 */
export function createSignInFailureAudit(db: Db, options: { throttledWindowMs?: number } = {}): SignInFailureAudit {
  const writing = new Set<Promise<void>>();
  const track = (write: Promise<unknown>) => {
    const settled = write.then(
      () => undefined,
      (error: unknown) => console.error(`[countersign] could not audit a failed sign-in: ${(error as Error).message}`),
    );
    writing.add(settled);
    void settled.finally(() => writing.delete(settled));
  };
  const throttled = createFailureCoalescer<Omit<SignInFailure, "reason">>({
    windowMs: options.throttledWindowMs ?? THROTTLED_SIGN_IN_WINDOW_MS,
    maxKeys: 10_000,
    label: "throttled sign-ins",
    write: async ({ detail, ...window }) => {
      if (!isClosed(db)) await auditSignInFailure(db, { ...detail, reason: "throttled" }, window);
    },
  });
  return {
    failed(failure) {
      track(auditSignInFailure(db, failure));
    },
    throttled(failure) {
      const email = failure.email.trim().toLowerCase();
      throttled.note(`${failure.method}\n${clientKeyFor(failure.clientAddress)}\n${email}`, { ...failure, email });
    },
    async flush() {
      await throttled.flush();
      await Promise.all([...writing]);
    },
  };
}

/** The process's sign-in failure audit for the client, flushed before it disconnects and on SIGTERM/SIGINT. */
export function signInFailureAuditFor(db: Db): SignInFailureAudit {
  return flushedPerClient("signInFailureAudit", db, () => createSignInFailureAudit(db));
}
