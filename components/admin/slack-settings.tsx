"use client";

import Link from "next/link";
import { useState } from "react";
import { buttonClass } from "@/components/ui/button";
import { useServerAction } from "@/components/ui/use-server-action";
import type { ActionResult } from "@/lib/server/boundary";
import { ResendButton, type Resend } from "@/components/admin/resend-button";

type Save = (raw: unknown) => Promise<ActionResult<{ saved: boolean }>>;

const input = "mt-0.5 block w-72 rounded border border-slate-300 px-2 py-1 text-sm";

/** The tenant's Slack app settings. The token and secret are write-only: never shown, blank keeps them. */
export function SlackSettingsForm(props: { configured: boolean; channel: string; openOnlyFrom: string; levels: string[]; save: Save }) {
  const [channel, setChannel] = useState(props.channel);
  const [openOnlyFrom, setOpenOnlyFrom] = useState(props.openOnlyFrom);
  const [botToken, setBotToken] = useState("");
  const [signingSecret, setSigningSecret] = useState("");
  const { message, pending, run } = useServerAction({ refresh: true });

  function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    run(() => props.save({ channel, openOnlyFrom, botToken, signingSecret }), () => {
      setBotToken("");
      setSigningSecret("");
      return "Saved. Actions that start waiting for review from now on are posted.";
    });
  }

  return (
    <form onSubmit={submit} aria-label="Slack app settings" className="space-y-3">
      <label className="block text-xs font-medium text-slate-700">
        Channel id
        <input required value={channel} onChange={(e) => setChannel(e.target.value)} placeholder="C0123ABCD" className={input} />
      </label>
      <label className="block text-xs font-medium text-slate-700">
        Open only (no Slack buttons) from risk
        <select value={openOnlyFrom} onChange={(e) => setOpenOnlyFrom(e.target.value)} className={input}>
          {props.levels.map((level) => <option key={level} value={level}>{level} and above</option>)}
        </select>
      </label>
      <p className="text-xs text-slate-600">Actions whose policy requires a passkey-signed approval or a minimum reading time always get Open only.</p>
      <label className="block text-xs font-medium text-slate-700">
        Bot token {props.configured ? "(saved; leave blank to keep)" : ""}
        <input type="password" autoComplete="off" value={botToken} onChange={(e) => setBotToken(e.target.value)} placeholder="xoxb-…" className={input} />
      </label>
      <label className="block text-xs font-medium text-slate-700">
        Signing secret {props.configured ? "(saved; leave blank to keep)" : ""}
        <input type="password" autoComplete="off" value={signingSecret} onChange={(e) => setSigningSecret(e.target.value)} className={input} />
      </label>
      <button type="submit" disabled={pending} className={buttonClass.primary}>{pending ? "Saving…" : "Save"}</button>
      {message ? <p role={message.ok ? "status" : "alert"} className={message.ok ? "text-sm text-emerald-800" : "text-sm text-red-800"}>{message.text}</p> : null}
    </form>
  );
}

export type FailedSlackRow = { id: string; kind: "message" | "notice"; actionId: string | null; channel: string | null; lastError: string | null };

/** Messages and escalation notices Slack did not accept before their retries ended, each with "Send again". */
export function FailedSlackDeliveries({ failed, resend }: { failed: FailedSlackRow[]; resend: Resend }) {
  if (failed.length === 0) return null;
  return (
    <section aria-label="Failed Slack messages" className="mt-3 rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-900">
      <p className="font-medium">Messages and notices Slack did not accept (retries ended):</p>
      <ul className="mt-1 space-y-1">
        {failed.map((f) => {
          const what = f.kind === "notice" ? `Escalation notice to ${f.channel ?? "its channel"}` : "Message";
          return (
            <li key={f.id} className="flex items-start justify-between gap-3">
              <span>
                {what}
                {f.actionId && <> about <Link className="underline" href={`/actions/${f.actionId}`}>{f.actionId.slice(0, 8)}</Link></>}: {f.lastError ?? "unknown error"}
              </span>
              <ResendButton id={f.id} label={`${what}${f.actionId ? ` about ${f.actionId.slice(0, 8)}` : ""}`} resend={resend} />
            </li>
          );
        })}
      </ul>
    </section>
  );
}
