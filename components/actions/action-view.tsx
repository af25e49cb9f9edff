import Link from "next/link";
import type { ActionDetail } from "@/lib/review/action-detail";
import { stateVerdict } from "@/lib/review/state-verdict";
import { visibleText } from "@/lib/review/visible-text";
import { isolationLabel } from "@/lib/sandbox/isolation-label";
import { PageHeader } from "@/components/shell/page-header";
import { RiskBadge, StatusBadge } from "@/components/ui/badges";
import { TimeLeft } from "@/components/ui/time";
import { ArtifactList } from "@/components/actions/artifact-list";
import { CodeView, LineDiff } from "@/components/actions/code-view";
import { DatasetList } from "@/components/actions/dataset-list";
import { DecisionPanel } from "@/components/actions/decision-panel";
import { EditArgs } from "@/components/actions/edit-args";
import { FieldDiff } from "@/components/actions/field-diff";
import { RemovedTags } from "@/components/actions/removed-tags";
import { formatUtcTime } from "@/components/actions/format";
import { DecisionHistory, RevisionHistory } from "@/components/actions/histories";
import { PreviewView, type EffectNow } from "@/components/actions/preview-view";
import { RiskTagList } from "@/components/actions/risk-tags";
import { RunInSandbox } from "@/components/actions/run-in-sandbox";
import { JsonBlock, ResultBlock, Section } from "@/components/actions/section";
import { SnapshotCompare } from "@/components/actions/snapshot-compare";
import { StateFindings } from "@/components/actions/state-findings";
import { ActionAutoRefresh } from "@/components/actions/auto-refresh";
import { ActionShortcuts } from "@/components/actions/action-shortcuts";
import { UpstreamToolFacts } from "@/components/actions/upstream-tool-view";
import { RevealedText } from "@/components/ui/revealed-text";
import { NOT_INSPECTABLE_TAG } from "@/lib/risk/deceptive-text";

function effectNowOf(state: ActionDetail["stateNow"]): EffectNow {
  if (state.state === "changed" || state.state === "unchanged") return { read: true, before: state.effectNow };
  if (state.state === "unreadable") return { read: false, why: "could not be read" };
  return { read: false, why: "not read again" };
}

/** The action page: everything a reviewer needs to decide, and the record of what happened. */
export function ActionView({ action, canReview = false }: { action: ActionDetail; /** The viewer reviews (j/k walk their queue). */ canReview?: boolean }) {
  const { current, viewer } = action;
  const summary = current.preview?.summary ?? action.tool;
  const previous = action.revisions.find((r) => r.revision === current.revision - 1) ?? null;
  const stateChangeRevision = current.diff?.fields.some((f) => f.path.startsWith("snapshot.")) ?? false;
  const notInspectable = current.riskTags.filter((t) => t.id === NOT_INSPECTABLE_TAG);
  // Approvals on record for this revision that the claim would not count (lib/review/action-detail.ts).
  const withdrawn = action.status === "pending"
    ? action.decisions.filter((d) => d.revision === current.revision && d.verdict === "approve" && !d.void && !d.counts).length
    : 0;
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

      <dl className="mb-4 grid grid-cols-2 gap-x-6 gap-y-2 rounded-lg border border-slate-200 bg-white px-4 py-3 text-[0.85rem] sm:grid-cols-3 lg:grid-cols-6">
        <Fact label="Tool"><span className="font-mono">{action.tool}</span></Fact>
        <Fact label="Requester">{action.requesterLabel}</Fact>
        <Fact label="Task">
          {action.task ? (
            <Link href={`/tasks/${action.task.id}`} className="text-indigo-800 underline decoration-slate-300 hover:decoration-indigo-700">
              {action.task.instruction.length > 60 ? `${action.task.instruction.slice(0, 59)}…` : action.task.instruction}
            </Link>
          ) : (
            <span className="text-slate-500">none (submitted directly)</span>
          )}
        </Fact>
        <Fact label="Approvals">
          <span className="font-semibold">{action.approvals}</span> of {action.quorum} · {action.eligibleRoles.join(" or ")}
        </Fact>
        <Fact label="Expires">
          {action.status === "pending" || action.status === "approved" ? <TimeLeft until={action.expiresAt} /> : formatUtcTime(action.expiresAt)}
        </Fact>
        <Fact label="Proposed">{formatUtcTime(action.createdAt)}</Fact>
      </dl>

      <StateFindings tags={current.riskTags} />

      {withdrawn > 0 && (
        <p role="note" className="mb-4 rounded-md border border-amber-300 bg-amber-50 px-4 py-2 text-[0.85rem] text-amber-950">
          <span className="font-medium">Back in review: </span>
          {withdrawn === 1 ? "an approval" : `${withdrawn} approvals`} of this revision no longer {withdrawn === 1 ? "counts" : "count"} — the
          reviewer may no longer decide it, or the passkey that signed was removed — so it needs {action.quorum - action.approvals} more.
        </p>
      )}

      {action.statusReason && action.status !== "pending" && (
        <p className="mb-4 rounded-md border border-slate-200 bg-white px-4 py-2 text-[0.85rem]">
          <span className="font-medium">Why it is {action.status.replaceAll("_", " ")}: </span>
          <span className="whitespace-pre-wrap">{action.statusReason}</span>
        </p>
      )}

      <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_23rem]">
        <div className="min-w-0 space-y-4">
          {previous && current.diff && (
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
          )}

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

          <Section title={`Risk tags (${current.riskTags.length})`} id="risk">
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

          {action.kind === "code" && current.code !== null ? (
            <Section title={`Code (${current.language ?? "python"}) with scan findings`} id="code" aside={<span className="text-xs text-slate-600">{current.scanFindings.length} finding{current.scanFindings.length === 1 ? "" : "s"}</span>}>
              <CodeView code={current.code} findings={current.scanFindings} language={current.language} />
            </Section>
          ) : (
            <Section title="Arguments" id="arguments" aside={<span className="text-xs text-slate-600">plain text, exactly as they will be executed</span>}>
              {notInspectable.length > 0 && (
                <p role="note" className="mb-2 rounded-md bg-orange-50 px-3 py-2 text-[0.85rem] text-orange-950">
                  <span className="font-semibold">Not inspectable: </span>
                  {notInspectable.map((t) => t.path ?? "a value").join(", ")}. The console cannot analyse {notInspectable.length === 1 ? "this value" : "these values"}; decide only if you know what {notInspectable.length === 1 ? "it is" : "they are"}. It cannot be approved in bulk.
                </p>
              )}
              <JsonBlock value={current.args} label="Arguments as plain text" />
            </Section>
          )}

          {current.datasets.length > 0 && (
            <Section title={`Data sets it reads (${current.datasets.length})`} id="datasets" aside={<span className="text-xs text-slate-600">read-only at /mnt/data · their hashes are part of the payload hash</span>}>
              <DatasetList datasets={current.datasets} />
            </Section>
          )}

          <Section title="Effect: before and after" id="preview">
            <PreviewView preview={current.preview} now={effectNowOf(action.stateNow)} args={action.kind === "code" ? null : current.args} />
          </Section>

          {action.executions.length > 0 && (
            <Section title="Execution" id="execution">
              <ul className="space-y-3">
                {action.executions.map((e) => (
                  <li key={e.id} className="space-y-1 text-[0.85rem]">
                    <div className="flex flex-wrap items-center gap-2">
                      <StatusBadge status={e.status} />
                      <span className="text-slate-700">
                        revision {e.revision} · {formatUtcTime(e.startedAt)}
                        {e.isolation ? ` · isolation ${e.isolation}` : ""}
                        {e.exitCode !== null ? ` · exit code ${e.exitCode}` : ""}
                        {e.durationMs !== null ? ` · ${e.durationMs} ms` : ""}
                        {e.truncated ? " · output truncated" : ""}
                      </span>
                    </div>
                    {e.stdout && <pre aria-label="Standard output" className="max-h-64 overflow-auto rounded-md bg-slate-950 p-2 font-mono text-[0.8rem] text-slate-100">{visibleText(e.stdout)}</pre>}
                    {e.stderr && <pre aria-label="Standard error" className="max-h-40 overflow-auto rounded-md bg-slate-950 p-2 font-mono text-[0.8rem] text-amber-300">{visibleText(e.stderr)}</pre>}
                    {!e.stdout && !e.stderr && e.result !== null && <ResultBlock result={e.result} />}
                    <ArtifactList artifacts={e.artifacts} />
                  </li>
                ))}
              </ul>
            </Section>
          )}
        </div>

        <aside className="min-w-0 space-y-4" aria-label="Decide and record">
          <Section title="Decision" id="decide">
            <DecisionPanel
              actionId={action.id}
              payloadHash={action.payloadHash}
              revision={action.currentRevision}
              canDecide={action.status === "pending" && viewer.canDecide}
              approveBlockedText={stateVerdict(action.stateNow) === "changed" ? "The state changed since request: re-read it (above) to approve; you can still reject this revision." : null}
              signatureRequired={current.policyDecision.signature === "required"}
              staysWhenApproved={action.kind === "code"}
              blockedText={
                viewer.decideBlockedReason ??
                (action.status === "pending" ? "Waiting for reviewers." : `No decision is open: this action is ${action.status.replaceAll("_", " ")}.`)
              }
            />
            {viewer.canEdit && (
              <div className="mt-3 border-t border-slate-100 pt-3">
                <EditArgs actionId={action.id} payloadHash={action.payloadHash} args={current.args} isCode={action.kind === "code"} />
              </div>
            )}
            {action.kind === "code" && (
              <RunInSandbox actionId={action.id} payloadHash={action.payloadHash} canRun={viewer.canRun} />
            )}
          </Section>

          <Section title="Payload hash and policy" id="hash">
            <dl className="space-y-2 text-[0.85rem]">
              <div>
                <dt className="text-xs text-slate-600">Payload hash ({current.hashAlgorithm === "sha256-jcs" ? "SHA-256 over RFC 8785 canonical JSON" : current.hashAlgorithm}, v{current.hashVersion})</dt>
                <dd className="break-all font-mono text-[0.78rem]" data-testid="payload-hash">{action.payloadHash}</dd>
              </div>
              <div>
                <dt className="text-xs text-slate-600">Policy rule that matched (policy version {current.policyVersion})</dt>
                <dd>
                  <span className="font-mono">{current.policyDecision.ruleId ?? "(default)"}</span>
                  {current.policyDecision.effect && <> · {current.policyDecision.effect.replaceAll("_", " ")}</>}
                  {current.policyDecision.tier && <> · {current.policyDecision.tier} tier</>}
                </dd>
                {current.policyDecision.reason && <dd className="mt-0.5 text-slate-700">{current.policyDecision.reason}</dd>}
              </div>
            </dl>
          </Section>

          {current.sandboxSpec && (
            <Section title="Sandbox spec (part of the hash)" id="sandbox">
              {isolationLabel(current.sandboxSpec.isolation) && (
                <p className="mb-2 text-sm text-slate-700">
                  Runs under <span className="font-medium">{isolationLabel(current.sandboxSpec.isolation)}</span>.
                </p>
              )}
              <JsonBlock value={current.sandboxSpec} label="Sandbox spec" />
            </Section>
          )}

          <Section title="Decision history" id="decisions">
            <DecisionHistory decisions={action.decisions} />
          </Section>

          <Section title={`Revisions (${action.revisions.length})`} id="revisions">
            <RevisionHistory revisions={action.revisions} />
          </Section>
        </aside>
      </div>
      <ActionAutoRefresh active={action.status === "pending" || action.status === "executing"} />
    </>
  );
}

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-slate-500">{label}</dt>
      <dd className="truncate">{children}</dd>
    </div>
  );
}
