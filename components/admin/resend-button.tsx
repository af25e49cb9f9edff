"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import type { ActionResult } from "@/lib/server/boundary";
import { ItemButton } from "@/components/ui/item-button";

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
      <ItemButton item={label} disabled={pending} onClick={again}>Send again</ItemButton>
      {error && <span role="alert" className="rounded-md bg-red-50 px-2 py-0.5 text-xs text-red-800">{error}</span>}
    </span>
  );
}
