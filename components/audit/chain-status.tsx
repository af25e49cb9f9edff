import type { ChainVerification } from "@/lib/audit/verify-audit-chain";

const PROBLEM_WORDS = {
  edited: "its contents do not match its hash — it was edited",
  missing_or_reordered: "the sequence has a gap or is out of order — an event was removed or reordered",
  broken_link: "it does not link to the event before it — the chain was cut or spliced",
  tail_removed: "the chain stops before the last event that was appended — the newest events were removed",
} as const satisfies Record<NonNullable<ChainVerification["firstBad"]>["problem"], string>;

export function ChainStatus({ result }: { result: ChainVerification }) {
  if (result.ok) {
    return (
      <div role="status" className="flex flex-wrap items-center gap-x-3 gap-y-1 rounded-lg border border-emerald-300 bg-emerald-50 px-4 py-2 text-emerald-900">
        <span className="font-semibold">✓ Chain verified</span>
        <span>{result.checked.toLocaleString("en-US")} events, every hash recomputed and linked.</span>
        <span className="font-mono text-xs" title="Hash of the newest sealed event">head {result.headHash.slice(0, 16)}…</span>
        {result.unsealed > 0 && (
          <span title="Events are sealed into the chain moments after they are written">
            {result.unsealed.toLocaleString("en-US")} newer {result.unsealed === 1 ? "event is" : "events are"} still being sealed.
          </span>
        )}
      </div>
    );
  }
  const bad = result.firstBad;
  return (
    <div role="alert" className="rounded-lg border border-red-300 bg-red-50 px-4 py-2 text-red-900">
      <p className="font-semibold">✗ Chain verification failed</p>
      {bad && (
        <p>
          First bad event: <span className="font-mono">#{bad.seq}</span>
          {bad.id && <> (id <span className="font-mono">{bad.id}</span>)</>} — {PROBLEM_WORDS[bad.problem]}. {result.checked.toLocaleString("en-US")} events before it verified.
        </p>
      )}
    </div>
  );
}
