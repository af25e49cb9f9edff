import type { RevealedSegment } from "@/lib/review/reveal-text";

/**
 * Revealed text split at its line feeds, one list of segments per line (markers never hold a line
 * feed: it is not a hidden character). A text revealed whole, then split, is one task on the pool
 * however many lines it has.
 */
export function segmentsByLine(segments: RevealedSegment[]): RevealedSegment[][] {
  const lines: RevealedSegment[][] = [[]];
  for (const segment of segments) {
    if (segment.kind !== "text") {
      lines[lines.length - 1].push(segment);
      continue;
    }
    const parts = segment.text.split("\n");
    parts.forEach((part, i) => {
      if (i > 0) lines.push([]);
      if (part !== "") lines[lines.length - 1].push({ kind: "text", text: part });
    });
  }
  return lines;
}
