import type { SnapshotView, StateNow } from "@/lib/review/action-detail";
import { changesSinceRequest, describeStateChanges } from "@/lib/review/state-verdict";
import { FieldDiff } from "@/components/actions/field-diff";
import { JsonBlock } from "@/components/actions/section";
import { formatUtcTime } from "@/components/actions/format";
import { RereadStateButton } from "@/components/actions/reread-state-button";
import { RereadOutcome } from "@/components/actions/reread-outcome";

/**
 * The state the decision rests on, as read at request, next to the same state read now. A change
 * means an approval would be invalidated at execution, so it is said loudly, with its diff.
 */
export function SnapshotCompare({
  atRequest,
  now,
  preExecution,
  reread,
}: {
  atRequest: SnapshotView | null;
  now: StateNow;
  preExecution: SnapshotView[];
  /** For a viewer who may decide a pending action: "Re-read state" makes a revision over the state now. */
  reread?: { actionId: string; revision: number; payloadHash: string; label: string };
}) {
  if (!atRequest) return <p className="text-slate-600">This action rests on no stored state (nothing to compare before execution).</p>;
  const changes = changesSinceRequest(now);
  return (
    <div className="space-y-3">
      {reread && <RereadOutcome actionId={reread.actionId} revision={reread.revision} className="text-sm" />}
      {changes && (
        <div role="alert" className="rounded-md border-l-4 border-red-600 bg-red-50 px-3 py-2 text-red-900">
          <p className="font-semibold">Changed since request</p>
          {changes.length > 0 && (
            // Which field moved, in words: a vote rests on fields, and only these voided it.
            <p className="text-[0.85rem] font-medium" data-testid="state-changes">changed: {describeStateChanges(changes)}</p>
          )}
          <p className="text-[0.85rem]">
            {now.state === "unreadable" ? `What this action rests on is gone: ${now.message} ` : "The state this action rests on is different now. "}
            An approval would be refused (and one given before would be invalidated at execution). Check the changes below before deciding.
          </p>
          <div className="mt-2 rounded bg-white/70 p-2">
            <FieldDiff changes={changes} caption="State changes since request" />
          </div>
          {reread && (
            <div className="mt-2">
              <RereadStateButton actionId={reread.actionId} revision={reread.revision} payloadHash={reread.payloadHash} label={reread.label} />
            </div>
          )}
        </div>
      )}
      {now.state === "unchanged" && (
        <p className="rounded-md bg-emerald-50 px-3 py-1.5 text-emerald-900">Unchanged since request: the state read now has the same hash.</p>
      )}
      {now.state === "unreadable" && !now.gone && <p className="rounded-md bg-amber-50 px-3 py-1.5 text-amber-950">The state now could not be read: {now.message}</p>}
      <div className="grid gap-3 md:grid-cols-2">
        <div>
          <h3 className="mb-1 text-xs font-medium text-slate-600">At request (revision {atRequest.revision}, {formatUtcTime(atRequest.takenAt)})</h3>
          <JsonBlock value={atRequest.data} label="Snapshot at request" sortKeys />
        </div>
        <div>
          <h3 className="mb-1 text-xs font-medium text-slate-600">Now</h3>
          {now.state === "changed" || now.state === "unchanged" ? (
            <JsonBlock value={now.data} label="State now" sortKeys />
          ) : (
            <p className="text-slate-600">{now.state === "none" ? "Not read again: the action is no longer waiting to run." : "—"}</p>
          )}
        </div>
      </div>
      {preExecution.length > 0 && (
        <details className="text-[0.85rem]">
          <summary className="cursor-pointer text-slate-700">Read just before execution ({preExecution.length})</summary>
          <ul className="mt-1 space-y-2">
            {preExecution.map((s, i) => (
              <li key={i}>
                <p className="text-xs text-slate-600">Revision {s.revision}, {formatUtcTime(s.takenAt)} · hash <span className="font-mono">{s.hash.slice(0, 16)}…</span></p>
                <JsonBlock value={s.data} sortKeys />
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
