"use client";

import type { BulkItemResult } from "@/app/(console)/queue/bulk-actions";
import { decisionErrorMessage } from "@/lib/review/decision-messages";
import type { QueueItem } from "@/lib/review/queue-item";

/** What the queue says after a decision, or why a key did nothing. */
export type QueueNotice = { tone: "ok" | "error"; text: string; details?: string[] };

export function QueueNoticeView({ notice }: { notice: QueueNotice }) {
  return (
    <div role="status" className={`mb-3 rounded-md px-3 py-2 ${notice.tone === "ok" ? "bg-emerald-50 text-emerald-900" : "bg-red-50 text-red-800"}`}>
      <p>{notice.text}</p>
      {notice.details && <ul className="mt-1 list-disc pl-5">{notice.details.map((d, i) => <li key={i}>{d}</li>)}</ul>}
    </div>
  );
}

export function bulkNotice(results: BulkItemResult[], targets: QueueItem[]): QueueNotice {
  const name = (id: string) => {
    const item = targets.find((t) => t.id === id);
    return item ? `${item.tool}: ${item.summary}` : id;
  };
  const failed = results.filter((r) => !r.ok);
  return {
    tone: failed.length ? "error" : "ok",
    text: failed.length ? `${results.length - failed.length} of ${results.length} decided; ${failed.length} refused.` : `All ${results.length} decided.`,
    details: results.map((r) => (r.ok ? `${name(r.actionId)} — ${r.status}` : `${name(r.actionId)} — refused: ${decisionErrorMessage(r)}`)),
  };
}
