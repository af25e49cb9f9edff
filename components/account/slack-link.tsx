"use client";

import { useState, useTransition } from "react";
import { buttonClass } from "@/components/ui/button";
import type { ActionResult } from "@/lib/server/boundary";

type Start = (raw: unknown) => Promise<ActionResult<{ code: string; expiresAt: string }>>;

/** Shows a one-time code the member sends from Slack (`/countersign link CODE`) to link their Slack user. */
export function SlackLink({ linkedAs, start }: { linkedAs: string | null; start: Start }) {
  const [code, setCode] = useState<{ code: string; expiresAt: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  function begin() {
    setError(null);
    startTransition(async () => {
      const result = await start({});
      if (result.ok) setCode(result.data);
      else setError(result.error.message);
    });
  }
  return (
    <div className="space-y-2 text-sm">
      <p>{linkedAs ? <>Linked to Slack user <code>{linkedAs}</code>.</> : "Your Slack user is not linked."}</p>
      <button type="button" onClick={begin} disabled={pending} className={buttonClass.secondary}>{linkedAs ? "Link another Slack user" : "Link my Slack user"}</button>
      {code ? (
        <div role="status" className="rounded-md border border-indigo-200 bg-indigo-50 p-3">
          In Slack, send <code className="font-mono">/countersign link {code.code}</code> within ten minutes (until {code.expiresAt.slice(11, 16)} UTC).
        </div>
      ) : null}
      {error ? <p role="alert" className="text-red-800">{error}</p> : null}
    </div>
  );
}
