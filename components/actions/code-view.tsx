import type { LineChange } from "@/lib/approvals/payload-diff";
import type { ScanFindingView } from "@/lib/review/action-detail";
import { Collapsible } from "@/components/ui/collapsible";
import { textSize } from "@/lib/review/text-size";
import { RevealedText, UnrevealedNote } from "@/components/ui/revealed-text";
import { RevealedSegments } from "@/components/ui/revealed-segments";
import { revealOffThread } from "@/lib/review/reveal-off-thread";
import { segmentsByLine } from "@/lib/review/segments-by-line";

const FINDING = {
  low: "bg-emerald-50 text-emerald-900 border-emerald-400",
  medium: "bg-amber-50 text-amber-950 border-amber-400",
  high: "bg-orange-50 text-orange-950 border-orange-500",
  critical: "bg-red-50 text-red-950 border-red-500",
} as const;

/**
 * Code with line numbers; each scan finding is shown under the line it is about. Hidden and
 * direction-changing characters are shown as markers, so code reads as it runs (a U+202E in a
 * string cannot reorder what the reviewer sees). The code is revealed whole on the compute pool,
 * then split into lines.
 */
export async function CodeView({ code, findings, language }: { code: string; findings: ScanFindingView[]; language: string | null }) {
  const revealed = await revealOffThread(code.replace(/\n$/, ""));
  if ("unrevealed" in revealed) return <UnrevealedNote length={code.length} />;
  const lines = segmentsByLine(revealed);
  const width = String(lines.length).length;
  const flagged = new Set(findings.map((f) => f.line));
  return (
    <Collapsible size={textSize(code)} what="code">
    <div role="region" aria-label={`${language ?? "code"} code with scan findings`} className="overflow-x-auto rounded-md bg-slate-950 py-2 font-mono text-[0.8rem] leading-relaxed text-slate-100">
      <ol className="min-w-fit">
        {lines.map((segments, i) => {
          const line = i + 1;
          return (
            <li key={line} id={`code-line-${line}`}>
              <div className={`flex ${flagged.has(line) ? "bg-red-500/20" : ""}`}>
                <span aria-hidden="true" className="select-none pr-3 pl-3 text-right text-slate-500" style={{ minWidth: `${width + 2}ch` }}>{line}</span>
                <span className="sr-only">Line {line}: </span>
                <code className="whitespace-pre pr-4">{segments.length > 0 ? <RevealedSegments segments={segments} /> : " "}</code>
              </div>
              {findings.filter((f) => f.line === line).map((f, j) => (
                <p key={j} className={`ml-10 mr-3 my-1 rounded border-l-4 px-2 py-1 font-sans text-xs ${FINDING[f.severity] ?? FINDING.medium}`}>
                  <strong className="uppercase">{f.severity}</strong> · line {f.line}{f.column ? `, column ${f.column}` : ""} · <span className="font-mono">{f.rule}</span>: {f.message}
                </p>
              ))}
            </li>
          );
        })}
      </ol>
    </div>
    </Collapsible>
  );
}

/** A line diff between two revisions of code: + added, − removed, in colour and sign. */
export function LineDiff({ lines }: { lines: LineChange[] }) {
  return (
    <pre aria-label="Code changes" className="overflow-x-auto rounded-md bg-white py-1 font-mono text-[0.8rem] leading-relaxed ring-1 ring-inset ring-slate-200">
      {lines.map((line, i) => (
        <div key={i} className={line.kind === "added" ? "bg-emerald-50 text-emerald-900" : line.kind === "removed" ? "bg-red-50 text-red-900" : "text-slate-600"}>
          <span aria-hidden="true" className="inline-block w-6 select-none text-center">{line.kind === "added" ? "+" : line.kind === "removed" ? "−" : " "}</span>
          <span className="sr-only">{line.kind === "added" ? "added: " : line.kind === "removed" ? "removed: " : ""}</span>
          <RevealedText text={line.text} />
        </div>
      ))}
    </pre>
  );
}
