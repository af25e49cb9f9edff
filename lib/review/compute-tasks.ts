// Pure functions of plain data whose cost grows with the input: they run on the compute pool
// (lib/compute/compute-pool.ts) through the tasks declared in compute.ts beside this file.
import { revealText, type RevealedSegment } from "@/lib/review/reveal-text";
import { resultText, type ResultText } from "@/lib/review/result-text";

/** Each text as a reviewer must see it (reveal-text.ts), in order. */
export function revealTexts(texts: string[]): RevealedSegment[][] {
  return texts.map(revealText);
}

/** Each stored execution result as the action page shows it (result-text.ts), in order. */
export function resultTexts(storedJsons: string[]): ResultText[] {
  return storedJsons.map((json) => resultText(json));
}
