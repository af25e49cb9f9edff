import { runCompute } from "@/lib/compute/compute-pool";
import { revealTextsTask } from "@/lib/review/compute";
import { isAppError } from "@/lib/errors";
import type { RevealedSegment } from "@/lib/review/reveal-text";

/**
 * What a text that could not be revealed in time is shown as: never the text itself, whose hidden
 * characters would act on the page.
 */
export type Unrevealed = { unrevealed: true; length: number };

type Waiting = { text: string; resolve: (segments: RevealedSegment[] | Unrevealed) => void; reject: (error: unknown) => void };

let batch: Waiting[] = [];

/**
 * `revealText` on the compute pool: its cost grows with the text (a hostile payload of 100,000
 * hidden characters took the request thread ~100 ms), and a page shows the same payload several
 * times. The texts a page asks for before the event loop's next turn go to the pool as one task;
 * a reviewer is waiting for them, so the task goes ahead of proposals, as an execution's does.
 * Past the pool's budget, or when it is too busy to take it, a text is `Unrevealed`.
 */
export function revealOffThread(text: string): Promise<RevealedSegment[] | Unrevealed> {
  return new Promise((resolve, reject) => {
    if (batch.length === 0) setImmediate(flush);
    batch.push({ text, resolve, reject });
  });
}

async function flush(): Promise<void> {
  const waiting = batch;
  batch = [];
  // The same text (a repeated word in a diff, a value shown twice) is revealed once.
  const texts = [...new Set(waiting.map((w) => w.text))];
  try {
    const revealed = await runCompute(revealTextsTask, texts, { what: "text to show", urgent: true });
    const byText = new Map(texts.map((text, i) => [text, revealed[i]]));
    for (const w of waiting) w.resolve(byText.get(w.text)!);
  } catch (error) {
    if (isAppError(error) && (error.code === "too_complex" || error.code === "busy")) {
      for (const w of waiting) w.resolve({ unrevealed: true, length: w.text.length });
    } else {
      for (const w of waiting) w.reject(error);
    }
  }
}
