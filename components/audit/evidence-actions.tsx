"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { buttonClass } from "@/components/ui/button";
import type { ActionResult } from "@/lib/server/boundary";

type Checkpoint = (raw: unknown) => Promise<ActionResult<{ state: "signed" | "unchanged"; size: string } | { state: "refused"; problem: string }>>;
type Verify = (raw: unknown) => Promise<ActionResult<{ started: boolean }>>;

/** Auditors' buttons: sign a checkpoint now, and verify every event now (in the background). */
export function EvidenceActions({ checkpoint, verify }: { checkpoint: Checkpoint; verify: Verify }) {
  const router = useRouter();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [pending, startTransition] = useTransition();
  const run = (work: () => Promise<{ ok: boolean; text: string }>) => () =>
    startTransition(async () => {
      setMessage(null);
      setMessage(await work());
      router.refresh();
    });
  return (
    <div className="flex flex-wrap items-center gap-2">
      <button type="button" disabled={pending} className={buttonClass.secondary} onClick={run(async () => {
        const result = await checkpoint({});
        if (!result.ok) return { ok: false, text: result.error.message };
        if (result.data.state === "refused") return { ok: false, text: `Not signed: ${result.data.problem}` };
        return { ok: true, text: `Checkpoint signed at ${Number(result.data.size).toLocaleString("en-US")} events.` };
      })}>
        Sign a checkpoint now
      </button>
      <button type="button" disabled={pending} className={buttonClass.secondary} onClick={run(async () => {
        const result = await verify({});
        if (!result.ok) return { ok: false, text: result.error.message };
        return { ok: true, text: result.data.started ? "Full verification started; its result appears here when it is done." : "A full verification is already running." };
      })}>
        Verify every event now
      </button>
      {message && <p role={message.ok ? "status" : "alert"} className={message.ok ? "text-emerald-800" : "text-red-800"}>{message.text}</p>}
    </div>
  );
}
