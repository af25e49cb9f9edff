"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { buttonClass } from "@/components/ui/button";
import type { ActionResult } from "@/lib/server/boundary";

const EXAMPLES = [
  "Send a payment reminder for INV-1042",
  "Cancel invoice INV-1045",
  "Refund 450.00 on INV-1043",
  "Run a Python analysis of the storage-buckets dataset and list stale buckets",
];

export function StartTaskForm({ start }: { start: (raw: unknown) => Promise<ActionResult<{ taskId: string }>> }) {
  const router = useRouter();
  const [instruction, setInstruction] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();

  function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(null);
    startTransition(async () => {
      const result = await start({ instruction });
      if (!result.ok) {
        setError(result.error.message);
        return;
      }
      setInstruction("");
      router.push(`/tasks/${result.data.taskId}`);
    });
  }

  return (
    <form onSubmit={submit} className="rounded-lg border border-slate-200 bg-white p-4" aria-describedby="task-help">
      <label htmlFor="instruction" className="block font-medium">What should the agent do?</label>
      <p id="task-help" className="text-sm text-slate-600">
        Plain language. Anything that changes data or reaches outside waits for a reviewer before it runs.
      </p>
      <div className="mt-2 flex gap-2">
        <input
          id="instruction"
          name="instruction"
          aria-label="Task instruction"
          value={instruction}
          onChange={(e) => setInstruction(e.target.value)}
          placeholder="e.g. Send a payment reminder for INV-1042"
          maxLength={4000}
          aria-invalid={error ? true : undefined}
          aria-errormessage={error ? "task-error" : undefined}
          className="min-w-0 flex-1 rounded-md border border-slate-300 px-3 py-1.5 focus:border-indigo-600 focus:outline-none focus:ring-2 focus:ring-indigo-600/30"
        />
        <button type="submit" className={buttonClass.primary} disabled={pending}>
          {pending ? "Starting…" : "Start task"}
        </button>
      </div>
      {error && (
        <p id="task-error" role="alert" className="mt-2 rounded-md bg-red-50 px-3 py-1.5 text-sm text-red-800">
          {error}
        </p>
      )}
      <div className="mt-2 flex flex-wrap items-center gap-1.5 text-xs text-slate-600">
        <span>Try:</span>
        {EXAMPLES.map((example) => (
          <button
            key={example}
            type="button"
            onClick={() => setInstruction(example)}
            className="rounded-full border border-slate-200 bg-slate-50 px-2 py-0.5 hover:bg-slate-100"
          >
            {example}
          </button>
        ))}
      </div>
    </form>
  );
}
