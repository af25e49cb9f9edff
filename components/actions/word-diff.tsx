import type { WordChange } from "@/lib/approvals/payload-diff";
import { RevealedText } from "@/components/ui/revealed-text";

/**
 * One side of a changed text, word by word: the "before" side marks the words the change removed,
 * the "after" side the words it added (struck through or underlined, and named for screen readers).
 */
export function WordDiff({ words, side }: { words: WordChange[]; side: "before" | "after" }) {
  const dropped = side === "before" ? "added" : "removed";
  return (
    <span className="whitespace-pre-wrap break-words font-mono text-[0.8rem] text-slate-800 [overflow-wrap:anywhere]" data-word-diff={side}>
      {words.map((w, i) => {
        if (w.kind === dropped) return null;
        if (w.kind === "same") return <RevealedText key={i} text={w.text} />;
        return w.kind === "removed" ? (
          <del key={i} className="rounded-sm bg-red-100 text-red-900 decoration-red-700">
            <span className="sr-only">removed: </span>
            <RevealedText text={w.text} />
          </del>
        ) : (
          <ins key={i} className="rounded-sm bg-emerald-100 text-emerald-900 decoration-emerald-700">
            <span className="sr-only">added: </span>
            <RevealedText text={w.text} />
          </ins>
        );
      })}
    </span>
  );
}
