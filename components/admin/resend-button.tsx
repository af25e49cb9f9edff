"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { buttonClass } from "@/components/ui/button";
import type { ActionResult } from "@/lib/server/boundary";

export type Resend = (raw: unknown) => Promise<ActionResult<{ id: string }>>;

/** "Send again" for one outbox message (a webhook delivery, a Slack message): the refusal, if any, shown beside it. */
export function ResendButton({ id, label, resend }: { id: string; label: string; resend: Resend }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();

  function again() {
    setError(null);
    startTransition(async () => {
      const result = await resend({ id });
      if (!result.ok) setError(result.error.message);
      router.refresh();
    });
  }

  return (
    <span className="inline-flex flex-col items-end gap-1">
      <button type="button" className={buttonClass.secondary} disabled={pending} onClick={again}>
        Send again<span className="sr-only"> {label}</span>
      </button>
      {error && <span role="alert" className="rounded-md bg-red-50 px-2 py-0.5 text-xs text-red-800">{error}</span>}
    </span>
  );
}
