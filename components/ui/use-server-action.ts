"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import type { ActionResult } from "@/lib/server/boundary";

/** What a form tells the user after a server action: its refusal, or what it did. */
export type ActionMessage = { ok: boolean; text: string };

/**
 * Runs a server action in a transition (`pending` meanwhile). A refusal becomes `message`; on success
 * `onOk` gets the data and may return the message to show. With `refresh`, the page's server data is
 * read again after every action, refused or not, as the action may have changed it either way.
 */
export function useServerAction({ refresh = false }: { refresh?: boolean } = {}) {
  const router = useRouter();
  const [message, setMessage] = useState<ActionMessage | null>(null);
  const [pending, startTransition] = useTransition();

  function run<T>(action: () => Promise<ActionResult<T>>, onOk?: (data: T) => string | void) {
    setMessage(null);
    startTransition(async () => {
      const result = await action();
      if (!result.ok) setMessage({ ok: false, text: result.error.message });
      else {
        const text = onOk?.(result.data);
        if (text) setMessage({ ok: true, text });
      }
      if (refresh) router.refresh();
    });
  }

  return { message, pending, run };
}
