import type { LineChange } from "@/lib/approvals/payload-diff";
import type { ScanFindingView } from "@/lib/review/action-detail";
import { Collapsible } from "@/components/ui/collapsible";
import { textSize } from "@/lib/review/text-size";
import { RevealedText, UnrevealedNote } from "@/components/ui/revealed-text";
import { RevealedSegments } from "@/components/ui/revealed-segments";
import { revealOffThread } from "@/lib/review/reveal-off-thread";
import { codeBlocks, lineNumbers } from "@/lib/review/code-blocks";
import type { RevealedSegment } from "@/lib/review/reveal-text";

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
 * then cut into blocks at the flagged lines: runs of lines are one text each beside a gutter of
 * their numbers, so the page does not grow by an element per line.
 */
export async function CodeView({ code, findings, language }: { code: string; findings: ScanFindingView[]; language: string | null }) {
  const revealed = await revealOffThread(code.replace(/\n$/, ""));
  if ("unrevealed" in revealed) return <UnrevealedNote length={code.length} />;
  const findingsByLine = new Map<number, ScanFindingView[]>();
  for (const f of findings) {
    const onLine = findingsByLine.get(f.line);
    if (onLine) onLine.push(f);
    else findingsByLine.set(f.line, [f]);
  }
  const blocks = codeBlocks(revealed, new Set(findingsByLine.keys()));
  const width = String(blocks.at(-1)!.last).length;
  return (
    <Collapsible size={textSize(code)} what="code">
    <div role="region" aria-label={`${language ?? "code"} code with scan findings`} tabIndex={0} className="overflow-x-auto rounded-md bg-slate-950 py-2 font-mono text-[0.8rem] leading-relaxed text-slate-100">
      <div className="min-w-fit">
        {blocks.map((block) => (
          <div key={block.first} id={`code-line-${block.first}`}>
            <div className={`flex ${block.flagged ? "bg-red-500/20" : ""}`}>
              <div aria-hidden="true" className="shrink-0 select-none whitespace-pre pr-3 pl-3 text-right text-slate-400" style={{ minWidth: `${width + 2}ch` }}>{lineNumbers(block)}</div>
              <code className="block whitespace-pre pr-4">
                <span className="sr-only">{block.first === block.last ? `Line ${block.first}: ` : `Lines ${block.first} to ${block.last}: `}</span>
                <RevealedSegments segments={block.segments} />
                {/* A block that ends in an empty line still shows that line, level with its number. */}
                {endsEmpty(block.segments) ? " " : null}
              </code>
            </div>
            {(findingsByLine.get(block.first) ?? []).map((f, j) => (
              <p key={j} className={`ml-10 mr-3 my-1 rounded border-l-4 px-2 py-1 font-sans text-xs ${FINDING[f.severity] ?? FINDING.medium}`}>
                <strong className="uppercase">{f.severity}</strong> · line {f.line}{f.column ? `, column ${f.column}` : ""} · <span className="font-mono">{f.rule}</span>: <RevealedText text={f.message} />
              </p>
            ))}
          </div>
        ))}
      </div>
    </div>
    </Collapsible>
  );
}

function endsEmpty(segments: RevealedSegment[]): boolean {
  const last = segments.at(-1);
  return last === undefined || (last.kind === "text" && last.text.endsWith("\n"));
}

/**
 * A line diff between two revisions of code: + added, − removed, in colour and sign. A run of lines
 * of one kind is one text (revealed as one) beside a gutter of its signs: the page grows by an
 * element per run of changes, not per line.
 */
export function LineDiff({ lines }: { lines: LineChange[] }) {
  // Revisions stored before the diff was kept as runs have a line each: neighbours of a kind join.
  const runs: Array<{ kind: LineChange["kind"]; texts: string[] }> = [];
  for (const line of lines) {
    const last = runs.at(-1);
    if (last?.kind === line.kind) last.texts.push(line.text);
    else runs.push({ kind: line.kind, texts: [line.text] });
  }
  return (
    <div role="region" aria-label="Code changes" tabIndex={0} className="overflow-x-auto rounded-md bg-white py-1 font-mono text-[0.8rem] leading-relaxed ring-1 ring-inset ring-slate-200">
      {runs.map((run, i) => {
        const sign = run.kind === "added" ? "+" : run.kind === "removed" ? "−" : " ";
        const text = run.texts.join("\n");
        const count = lineCountOf(text);
        return (
          <div key={i} className={`flex ${run.kind === "added" ? "bg-emerald-50 text-emerald-900" : run.kind === "removed" ? "bg-red-50 text-red-900" : "text-slate-600"}`}>
            <div aria-hidden="true" className="w-6 shrink-0 select-none whitespace-pre text-center">{`${sign}\n`.repeat(count - 1) + sign}</div>
            <code className="block whitespace-pre">
              <span className="sr-only">{run.kind === "added" ? `added, ${lineCount(count)}: ` : run.kind === "removed" ? `removed, ${lineCount(count)}: ` : ""}</span>
              <RevealedText text={text} />
              {text.endsWith("\n") || text === "" ? " " : null}
            </code>
          </div>
        );
      })}
    </div>
  );
}

function lineCountOf(text: string): number {
  let count = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
  return count;
}

function lineCount(count: number): string {
  return count === 1 ? "1 line" : `${count.toLocaleString("en")} lines`;
}
