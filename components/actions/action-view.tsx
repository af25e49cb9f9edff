import type { ActionDetail } from "@/lib/review/action-detail";
import { stateVerdict } from "@/lib/review/state-verdict";
import { PageHeader } from "@/components/shell/page-header";
import { RiskBadge, StatusBadge } from "@/components/ui/badges";
import { ActionAside } from "@/components/actions/action-aside";
import { ActionFacts } from "@/components/actions/action-facts";
import { BackInReviewNote, StatusReasonNote } from "@/components/actions/action-notes";
import { ArgumentsSection } from "@/components/actions/arguments-section";
import { DatasetList } from "@/components/actions/dataset-list";
import { ExecutionSection } from "@/components/actions/execution-section";
import { PreviewView } from "@/components/actions/preview-view";
import type { EffectNow } from "@/lib/review/effect-rows";
import { RevisionDiffSection } from "@/components/actions/revision-diff-section";
import { RiskTagList, riskFindingCount } from "@/components/actions/risk-tags";
import { Section } from "@/components/actions/section";
import { SnapshotCompare } from "@/components/actions/snapshot-compare";
import { StateFindings } from "@/components/actions/state-findings";
import { ActionAutoRefresh } from "@/components/actions/auto-refresh";
import { ActionShortcuts } from "@/components/actions/action-shortcuts";
import { UpstreamToolFacts } from "@/components/actions/upstream-tool-view";
import { RevealedText } from "@/components/ui/revealed-text";

function effectNowOf(state: ActionDetail["stateNow"]): EffectNow {
  if (state.state === "changed" || state.state === "unchanged") return { read: true, before: state.effectNow, after: state.effectAfterNow };
  if (state.state === "unreadable") return { read: false, why: "could not be read" };
  return { read: false, why: "not read again" };
}

/** The action page: everything a reviewer needs to decide, and the record of what happened. */
export function ActionView({ action, canReview = false, passkeyOrigins = [] }: {
  action: ActionDetail;
  /** The viewer reviews (j/k walk their queue). */
  canReview?: boolean;
  /** Where passkeys work, for a signed approval opened elsewhere. */
  passkeyOrigins?: string[];
}) {
  const { current, viewer } = action;
  const summary = current.preview?.summary ?? action.tool;
  return (
    <>
      <PageHeader title={<RevealedText text={summary} />}>
        <div className="flex flex-wrap items-center gap-2">
          <StatusBadge status={action.status} />
          <RiskBadge level={action.riskLevel} />
          <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs font-medium text-slate-700">revision {action.currentRevision}</span>
        </div>
      </PageHeader>
      <ActionShortcuts actionId={action.id} canReview={canReview} canDecide={action.status === "pending" && viewer.canDecide} canEdit={viewer.canEdit} />
      <ActionFacts action={action} />
      <StateFindings tags={current.riskTags} />
      <BackInReviewNote action={action} />
      <StatusReasonNote action={action} />

      {/* While the arguments are being edited, the side column takes half the width: the form needs room. */}
      <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_23rem] lg:has-[[data-editing]]:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
        <div className="min-w-0 space-y-4">
          <RevisionDiffSection action={action} />

          <Section title="The agent's stated reason" id="reason" aside={<span className="text-xs text-slate-600">the agent&apos;s words; the arguments below are what runs</span>}>
            {action.reason ? (
              <p className="whitespace-pre-wrap break-words [overflow-wrap:anywhere]" data-testid="agent-reason"><RevealedText text={action.reason} /></p>
            ) : (
              <p className="text-slate-600">The agent gave no reason.</p>
            )}
          </Section>

          {action.upstream && (
            <Section title="MCP tool" id="mcp-tool" aside={<span className="text-xs text-slate-600">forwarded to its server once, after approval</span>}>
              <UpstreamToolFacts upstream={action.upstream} />
            </Section>
          )}

          <Section title={`Risk tags (${riskFindingCount(current.riskTags)})`} id="risk">
            <RiskTagList tags={current.riskTags} />
          </Section>

          <Section title="State it rests on: at request and now" id="snapshot" aside={stateVerdict(action.stateNow) === "changed" ? <span className="text-xs font-semibold text-red-800">Changed since request</span> : undefined}>
            <SnapshotCompare
              atRequest={action.requestSnapshot}
              now={action.stateNow}
              preExecution={action.preExecutionSnapshots}
              reread={action.status === "pending" && viewer.canEdit ? { actionId: action.id, revision: action.currentRevision, payloadHash: action.payloadHash, label: `${action.tool}: ${summary}` } : undefined}
            />
          </Section>

          <ArgumentsSection action={action} />

          {current.datasets.length > 0 && (
            <Section title={`Data sets it reads (${current.datasets.length})`} id="datasets" aside={<span className="text-xs text-slate-600">read-only at /mnt/data · their hashes are part of the payload hash</span>}>
              <DatasetList datasets={current.datasets} />
            </Section>
          )}

          <Section title="Effect: before and after" id="preview">
            <PreviewView preview={current.preview} now={effectNowOf(action.stateNow)} args={action.kind === "code" ? null : current.args} />
          </Section>

          <ExecutionSection executions={action.executions} />
        </div>

        <ActionAside action={action} passkeyOrigins={passkeyOrigins} />
      </div>
      <ActionAutoRefresh active={action.status === "pending" || action.status === "executing"} />
    </>
  );
}
