import type { ActionDetail } from "@/lib/review/action-detail";
import { LineDiff } from "@/components/actions/code-view";
import { FieldDiff } from "@/components/actions/field-diff";
import { RemovedTags } from "@/components/actions/removed-tags";
import { Section } from "@/components/actions/section";

/** What changed from the previous revision, and why this one exists. */
export function RevisionDiffSection({ action }: { action: ActionDetail }) {
  const { current } = action;
  const previous = action.revisions.find((r) => r.revision === current.revision - 1) ?? null;
  if (!previous || !current.diff) return null;
  const stateChangeRevision = current.diff.fields.some((f) => f.path.startsWith("snapshot."));
  return (
    <Section title={stateChangeRevision ? `Why revision ${current.revision} exists: the state changed` : `Changes from revision ${previous.revision}`} id="diff" aside={<span className="text-xs text-slate-600">{current.origin}</span>}>
      {current.diff.removedTags && <RemovedTags tags={current.diff.removedTags} fromRevision={previous.revision} />}
      {current.diff.unavailable && <p role="note" data-testid="diff-unavailable" className="mb-2 rounded-md bg-amber-50 px-3 py-1.5 text-amber-950">{current.diff.unavailable}</p>}
      <FieldDiff changes={current.diff.fields} caption={`Changes from revision ${previous.revision} to ${current.revision}`} />
      {current.diff.code && current.diff.code.some((l) => l.kind !== "same") && (
        <div className="mt-3">
          <h3 className="mb-1 text-xs font-medium text-slate-600">Code changes</h3>
          <LineDiff lines={current.diff.code} />
        </div>
      )}
    </Section>
  );
}
