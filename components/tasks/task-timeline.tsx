import Link from "next/link";
import { ArtifactList } from "@/components/actions/artifact-list";
import { RiskBadge, StatusBadge } from "@/components/ui/badges";
import { formatUtc } from "@/components/ui/format";
import type { GateOutcome } from "@/lib/agent/gate-outcome";
import { visibleText } from "@/lib/review/visible-text";
import type { TaskTimeline, TimelineAction, TimelineEntry, TimelineExecution, TimelineRevisionArgs, TimelineToolResult } from "@/lib/tasks/get-task-timeline";

// Everything from the model and from tools is rendered as React text children (escaped), in <pre>
// or whitespace-preserving blocks: never as HTML or markdown.

function Block({ label, tone = "slate", children }: { label: string; tone?: "slate" | "indigo" | "emerald" | "red"; children: React.ReactNode }) {
  const dot = { slate: "bg-slate-400", indigo: "bg-indigo-600", emerald: "bg-emerald-600", red: "bg-red-600" }[tone];
  return (
    <li className="relative pl-6">
      <span aria-hidden className={`absolute left-0 top-1.5 h-2.5 w-2.5 rounded-full ${dot}`} />
      <p className="text-xs font-semibold uppercase tracking-wide text-slate-500">{label}</p>
      <div className="mt-1">{children}</div>
    </li>
  );
}

function PlainText({ text, className = "" }: { text: string; className?: string }) {
  return <p className={`whitespace-pre-wrap break-words ${className}`}>{text}</p>;
}

function Output({ label, text, tone = "slate" }: { label: string; text: string; tone?: "slate" | "red" }) {
  return (
    <div>
      <p className="text-xs font-medium text-slate-600">{label}</p>
      <pre className={`mt-0.5 max-h-80 overflow-auto rounded-md p-2 font-mono text-xs whitespace-pre-wrap break-words ${tone === "red" ? "bg-red-50 text-red-950" : "bg-slate-900 text-slate-100"}`}>{visibleText(text)}</pre>
    </div>
  );
}

const GATE_WORDS: Record<GateOutcome["kind"], string> = {
  rejected: "Rejected by a reviewer — not executed",
  expired: "Expired before anyone decided — not executed",
  denied: "Denied by policy — not executed",
  blocked: "Blocked before review — not executed",
  invalid: "Invalid call — not executed",
  failed: "Approved, but failed when executed",
  cancelled: "Cancelled — not executed",
};

function GateResult({ outcome }: { outcome: GateOutcome }) {
  return (
    <div className={`rounded-md px-3 py-2 text-sm ${outcome.kind === "expired" || outcome.kind === "cancelled" ? "bg-slate-100 text-slate-800" : "bg-red-50 text-red-900"}`}>
      <p className="font-medium">{GATE_WORDS[outcome.kind]}</p>
      {"reason" in outcome && outcome.reason && <PlainText text={`Reason: ${outcome.reason}`} />}
    </div>
  );
}

function ToolResult({ result }: { result: TimelineToolResult }) {
  if (result.kind === "gate") return <GateResult outcome={result.outcome} />;
  return (
    <details className="text-sm">
      <summary className="cursor-pointer text-slate-700">What the tool returned to the agent (untrusted data){result.truncated ? " — truncated" : ""}</summary>
      <pre className="mt-1 max-h-64 overflow-auto rounded-md bg-slate-50 p-2 font-mono text-xs whitespace-pre-wrap break-words ring-1 ring-slate-200">{result.text}</pre>
    </details>
  );
}

function ExecutionView({ execution, kind }: { execution: TimelineExecution; kind: "tool" | "code" }) {
  const running = execution.status === "executing";
  return (
    <div className="space-y-1.5 rounded-md border border-slate-200 p-2">
      <p className="flex flex-wrap items-center gap-2 text-sm">
        <span className="font-medium">Execution</span>
        <StatusBadge status={execution.status} />
        {execution.isolation && <span className="text-slate-600">isolation: {execution.isolation}</span>}
        {execution.exitCode !== null && <span className="text-slate-600">exit code {execution.exitCode}</span>}
        {execution.durationMs !== null && <span className="text-slate-600">{execution.durationMs} ms</span>}
        {running && <span className="text-indigo-800" role="status">Running — output appears here as it is recorded…</span>}
      </p>
      {kind === "code" && (
        <>
          <Output label={`stdout${execution.truncated ? " (truncated)" : ""}`} text={execution.stdout || (running ? "…" : "(no output)")} />
          {execution.stderr && <Output label="stderr" text={execution.stderr} tone="red" />}
        </>
      )}
      {execution.error && <PlainText className="text-sm text-red-800" text={`Error: ${execution.error}`} />}
      <ArtifactList artifacts={execution.artifacts} />
    </div>
  );
}

function ActionView({ action }: { action: TimelineAction }) {
  const approvals = action.decisions.filter((d) => d.counts && d.verdict === "approve" && d.revision === action.revision).length;
  return (
    <div className="space-y-2">
      <p className="flex flex-wrap items-center gap-2 text-sm">
        <StatusBadge status={action.status} />
        <RiskBadge level={action.riskLevel} />
        {action.requiresApproval ? (
          <span className="text-slate-700">
            {action.status === "pending" ? `waiting for approval: ${approvals} of ${action.quorum}` : `needed ${action.quorum} approval${action.quorum === 1 ? "" : "s"}`}
          </span>
        ) : (
          <span className="text-slate-600">{action.status === "denied" ? "refused by policy" : "ran without review (the policy allows it)"}</span>
        )}
        {action.revision > 1 && <span className="text-slate-600">revision {action.revision}</span>}
        <Link href={`/actions/${action.id}`} className="font-medium text-indigo-700 hover:underline">
          Open action<span className="sr-only"> {action.tool}</span>
        </Link>
      </p>
      {action.statusReason && ["expired", "invalidated", "cancelled", "denied", "failed", "unknown"].includes(action.status) && (
        <PlainText className="text-sm text-slate-700" text={action.statusReason} />
      )}
      {action.decisions.length > 0 && (
        <ul className="space-y-1 text-sm" aria-label="Decisions">
          {action.decisions.map((d, i) => (
            <li key={i} className={d.void ? "text-slate-500 line-through" : ""}>
              <span className={d.verdict === "approve" ? "font-medium text-emerald-800" : "font-medium text-red-800"}>
                {d.verdict === "approve" ? "Approved" : "Rejected"}
              </span>{" "}
              by {d.reviewer} <span className="text-xs text-slate-500">({formatUtc(d.at)}, revision {d.revision}{d.void ? ", void: the revision changed" : ""}{!d.void && !d.counts ? ", no longer counts" : ""})</span>
              {d.note && <PlainText className="text-slate-800" text={`“${d.note}”`} />}
            </li>
          ))}
        </ul>
      )}
      {action.executions.map((e, i) => <ExecutionView key={i} execution={e} kind={action.kind} />)}
    </div>
  );
}

/** The arguments of a later revision (a reviewer's edit): what ran, or what waits to, instead of the agent's. */
function RevisedArgs({ revised }: { revised: TimelineRevisionArgs }) {
  const label = `${revised.ran ? "Arguments that ran" : "Arguments waiting for approval"}: revision ${revised.revision}, ${revised.origin}`;
  return (
    <div>
      <p className="text-sm font-medium text-slate-800">{label}</p>
      <pre aria-label={label} className="mt-1 max-h-64 overflow-auto rounded-md bg-slate-50 p-2 font-mono text-xs whitespace-pre-wrap break-words ring-1 ring-slate-200">{revised.argsText}</pre>
    </div>
  );
}

function Entry({ entry }: { entry: TimelineEntry }) {
  switch (entry.kind) {
    case "instruction":
      return <Block label={`You asked · ${formatUtc(entry.at)}`} tone="indigo"><PlainText className="font-medium" text={entry.text} /></Block>;
    case "model":
      return <Block label="Agent"><PlainText className="text-slate-800" text={entry.text} /></Block>;
    case "action":
      return (
        <Block label={`Proposed ${entry.action.tool}`}>
          <div className="space-y-2 rounded-lg border border-slate-200 bg-white p-3">
            {entry.action.revisedArgs && <RevisedArgs revised={entry.action.revisedArgs} />}
            <ActionView action={entry.action} />
          </div>
        </Block>
      );
    case "call":
      return (
        <Block label={`Tool call · ${entry.tool}`}>
          <div className="space-y-2 rounded-lg border border-slate-200 bg-white p-3" data-testid="tool-call">
            {entry.action?.revisedArgs && <RevisedArgs revised={entry.action.revisedArgs} />}
            <details open={!entry.action?.revisedArgs && (entry.action?.requiresApproval ?? false)}>
              <summary className="cursor-pointer text-sm text-slate-700">{entry.action?.revisedArgs ? "Arguments the agent proposed (revision 1)" : "Arguments"}</summary>
              <pre className="mt-1 max-h-64 overflow-auto rounded-md bg-slate-50 p-2 font-mono text-xs whitespace-pre-wrap break-words ring-1 ring-slate-200">{entry.argsText}</pre>
            </details>
            {entry.action?.reason && !entry.reasonRepeatsModelText && <PlainText className="text-sm text-slate-700" text={`Agent's reason: ${entry.action.reason}`} />}
            {entry.action && <ActionView action={entry.action} />}
            {entry.result && <ToolResult result={entry.result} />}
          </div>
        </Block>
      );
  }
}

/** How the run ended: its final answer, or the error it stopped with. */
function RunEnd({ label, name, tone, text }: { label: string; name: string; tone: "emerald" | "red"; text: string }) {
  const box = tone === "emerald" ? "border-emerald-200 bg-emerald-50" : "border-red-200 bg-red-50 text-red-900";
  return (
    <Block label={label} tone={tone}>
      <section aria-label={name} className={`rounded-lg border p-3 ${box}`}>
        <PlainText text={text} />
      </section>
    </Block>
  );
}

export function TaskTimelineView({ timeline }: { timeline: TaskTimeline }) {
  return (
    <ol className="space-y-4 border-l border-slate-200 pl-4" aria-label="Timeline">
      {timeline.entries.map((entry, i) => <Entry key={i} entry={entry} />)}
      {timeline.finalAnswer && <RunEnd label="Final answer" name="Final answer" tone="emerald" text={timeline.finalAnswer} />}
      {timeline.error && <RunEnd label="The run stopped with an error" name="Run error" tone="red" text={timeline.error} />}
      {!timeline.finalAnswer && !timeline.error && (
        <Block label="Now">
          <p className="text-sm text-slate-700" role="status">{NOW_WORDS[timeline.status]}</p>
        </Block>
      )}
    </ol>
  );
}

const NOW_WORDS: Record<TaskTimeline["status"], string> = {
  queued: "Queued — a worker will pick it up in a moment.",
  running: "The agent is working…",
  waiting_approval: "Waiting for a reviewer. The run resumes by itself once every pending action is decided.",
  completed: "Completed.",
  failed: "Failed.",
  cancelled: "Cancelled.",
};
