"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { buttonClass } from "@/components/ui/button";
import type { ActionResult } from "@/lib/server/boundary";

type SetPaused = (raw: unknown) => Promise<ActionResult<{ paused: boolean }>>;

/**
 * The stop button: pauses every agent of the organisation at once (proposals refused, approved
 * actions held, tasks stopped before their next tool call), and resumes them.
 */
export function AgentsPause({ paused, setPaused }: { paused: { at: string; by: string | null; reason: string | null } | null; setPaused: SetPaused }) {
  const router = useRouter();
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();

  function apply(next: boolean) {
    if (next && !window.confirm("Pause every agent of this organisation now? Proposals are refused and approved actions wait until you resume.")) return;
    setError(null);
    startTransition(async () => {
      const result = await setPaused(next ? { paused: true, reason } : { paused: false });
      if (!result.ok) {
        setError(result.error.message);
        return;
      }
      setReason("");
      router.refresh();
    });
  }

  return (
    <div className="space-y-2">
      {paused ? (
        <div className="flex flex-wrap items-center gap-3">
          <p className="text-sm">
            <span className="font-semibold text-red-800">Agents are paused</span> since <time dateTime={paused.at}>{paused.at.slice(0, 16).replace("T", " ")} UTC</time>
            {paused.by && <> by {paused.by}</>}
            {paused.reason && <>: “{paused.reason}”</>}.
          </p>
          <button type="button" className={buttonClass.approve} disabled={pending} onClick={() => apply(false)}>Resume agents</button>
        </div>
      ) : (
        <form
          className="flex flex-wrap items-end gap-3"
          aria-label="Pause all agents"
          onSubmit={(event) => {
            event.preventDefault();
            apply(true);
          }}
        >
          <label className="block text-xs font-medium text-slate-700">
            Reason (shown to everyone in the banner)
            <input value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} placeholder="e.g. refunds misbehaving" className="mt-0.5 block w-80 rounded-md border border-slate-300 px-2 py-1 text-sm" />
          </label>
          <button type="submit" className={buttonClass.reject} disabled={pending}>Pause all agents</button>
        </form>
      )}
      {error && <p role="alert" className="rounded-md bg-red-50 px-3 py-1.5 text-sm text-red-800">{error}</p>}
    </div>
  );
}
