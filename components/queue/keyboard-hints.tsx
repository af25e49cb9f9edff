"use client";

/** The queue's keys, said once above the list. */
export function KeyboardHints({ bulk }: { bulk: boolean }) {
  const keys: Array<[string, string]> = [["j", "next"], ["k", "previous"], ["Enter / o", "open"], ["a", "approve"], ["r", "reject"]];
  if (bulk) keys.push(["x", "select for bulk"]);
  return (
    <p aria-label="Keyboard shortcuts" className="mb-3 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600">
      {keys.map(([key, what]) => (
        <span key={key}>
          <kbd className="rounded border border-slate-300 bg-white px-1 font-mono text-[0.7rem] text-slate-800 shadow-sm">{key}</kbd> {what}
        </span>
      ))}
    </p>
  );
}
