"use client";

/** What the decision panel says: the outcome of a decision, or why none was recorded. */
export type DecisionMessage = { tone: "ok" | "error"; text: string };

export function DecisionOutcome({ message }: { message: DecisionMessage | null }) {
  if (!message) return null;
  return (
    <p role={message.tone === "error" ? "alert" : "status"} className={`rounded-md px-3 py-2 text-[0.85rem] ${message.tone === "ok" ? "bg-emerald-50 text-emerald-900" : "bg-red-50 text-red-800"}`}>
      {message.text}
    </p>
  );
}
