import type { RevealedSegment } from "@/lib/review/reveal-text";

/**
 * Revealed text (lib/review/reveal-text.ts) as React text nodes, never HTML: invisible code points
 * as ⟦U+202E⟧ markers, lookalike letters in Latin words named beside them.
 */
export function RevealedSegments({ segments }: { segments: RevealedSegment[] }) {
  return (
    <>
      {segments.map((s, i) =>
        s.kind === "text" ? (
          s.text
        ) : s.kind === "hidden" ? (
          <span key={i} data-hidden-char={s.label} title={`Hidden character: ${s.name}`} className="mx-px rounded-sm bg-red-100 px-0.5 font-mono text-[0.75em] font-semibold text-red-800 ring-1 ring-red-300">
            ⟦{s.label}{s.count > 1 ? ` ×${s.count}` : ""}⟧
          </span>
        ) : (
          <span key={i} data-lookalike={s.label} title="A letter of another script in a Latin word" className="rounded-sm bg-amber-100 text-amber-950 ring-1 ring-amber-400">
            {s.char}
            <span className="font-mono text-[0.75em] font-semibold">⟦{s.label}⟧</span>
          </span>
        ),
      )}
    </>
  );
}
