import type { ExecutionView } from "@/lib/review/action-detail";
import { visibleText } from "@/lib/review/visible-text";
import { StatusBadge } from "@/components/ui/badges";
import { ArtifactList } from "@/components/actions/artifact-list";
import { formatUtcTime } from "@/components/actions/format";
import { ResultBlock, Section } from "@/components/actions/section";

/** Each run of the action: how it went, its output and the files it left. */
export function ExecutionSection({ executions }: { executions: ExecutionView[] }) {
  if (executions.length === 0) return null;
  return (
    <Section title="Execution" id="execution">
      <ul className="space-y-3">
        {executions.map((e) => (
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
            {e.stdout && <pre aria-label="Standard output" tabIndex={0} className="max-h-64 overflow-auto rounded-md bg-slate-950 p-2 font-mono text-[0.8rem] text-slate-100">{visibleText(e.stdout)}</pre>}
            {e.stderr && <pre aria-label="Standard error" tabIndex={0} className="max-h-40 overflow-auto rounded-md bg-slate-950 p-2 font-mono text-[0.8rem] text-amber-300">{visibleText(e.stderr)}</pre>}
            {!e.stdout && !e.stderr && e.result !== null && <ResultBlock result={e.result} />}
            <ArtifactList artifacts={e.artifacts} />
          </li>
        ))}
      </ul>
    </Section>
  );
}
