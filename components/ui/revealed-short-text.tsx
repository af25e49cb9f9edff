import { RevealedSegments } from "@/components/ui/revealed-segments";
import { revealText } from "@/lib/review/reveal-text";

/** The most of a text a client component reveals where it renders (a summary is far shorter). */
export const SHORT_TEXT_LIMIT = 1_000;

/**
 * A short text (an action's summary) in a client component, revealed where it renders: on the
 * request thread while the page is rendered, so its cost is bounded. Past SHORT_TEXT_LIMIT
 * characters the rest is not shown, and the number left out is; the action's page shows it whole.
 */
export function RevealedShortText({ text }: { text: string }) {
  const rest = text.length - SHORT_TEXT_LIMIT;
  return (
    <>
      <RevealedSegments segments={revealText(rest > 0 ? text.slice(0, SHORT_TEXT_LIMIT) : text)} />
      {rest > 0 && <span className="text-slate-500">… ({rest.toLocaleString("en")} more characters)</span>}
    </>
  );
}
