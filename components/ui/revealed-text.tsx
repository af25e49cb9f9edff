import "server-only";
import { RevealedSegments } from "@/components/ui/revealed-segments";
import { revealOffThread } from "@/lib/review/reveal-off-thread";

/**
 * Untrusted text of any length on a server-rendered page, revealed on the compute pool
 * (lib/review/reveal-off-thread.ts): a payload of 100,000 hidden characters never holds the
 * request thread. A text that could not be revealed in time is not shown at all. Client
 * components show only short texts, with RevealedShortText.
 */
export async function RevealedText({ text }: { text: string }) {
  const revealed = await revealOffThread(text);
  if ("unrevealed" in revealed) return <UnrevealedNote length={revealed.length} />;
  return <RevealedSegments segments={revealed} />;
}

/** In place of a text that could not be revealed in time: it is not shown at all. */
export function UnrevealedNote({ length }: { length: number }) {
  return (
    <span role="note" className="rounded-sm bg-orange-50 px-1 text-orange-950 ring-1 ring-orange-300">
      This text ({length.toLocaleString("en")} characters) could not be checked for hidden characters in time, so it is not shown. Reload the page to try again.
    </span>
  );
}
