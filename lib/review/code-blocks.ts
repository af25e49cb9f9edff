import type { RevealedSegment } from "@/lib/review/reveal-text";

/**
 * A run of consecutive lines of code shown as one block: its text with line feeds between the
 * lines, and a gutter of numbers `first`…`last`. A line with a scan finding is a block alone, so its
 * findings can sit under it.
 */
export type CodeBlock = { first: number; last: number; flagged: boolean; segments: RevealedSegment[] };

/**
 * Revealed code cut into blocks at the flagged lines: a page shows a few blocks, however many
 * lines the code has (an element per line made a page of 50,000 short lines 37 MB, and seconds of
 * the request thread). One pass; the text between two cuts is sliced once. Markers never hold a
 * line feed (it is not a hidden character).
 */
export function codeBlocks(segments: RevealedSegment[], flagged: ReadonlySet<number>): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let line = 1;
  let block: CodeBlock = { first: 1, last: 1, flagged: flagged.has(1), segments: [] };
  const addText = (text: string) => {
    if (text === "") return;
    const last = block.segments.at(-1);
    if (last?.kind === "text") block.segments[block.segments.length - 1] = { kind: "text", text: last.text + text };
    else block.segments.push({ kind: "text", text });
  };
  for (const segment of segments) {
    if (segment.kind !== "text") {
      block.segments.push(segment);
      continue;
    }
    const { text } = segment;
    let from = 0; // the start of the text not yet added to the block
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) {
      line++;
      if (block.flagged || flagged.has(line)) {
        addText(text.slice(from, at));
        block.last = line - 1;
        blocks.push(block);
        block = { first: line, last: line, flagged: flagged.has(line), segments: [] };
        from = at + 1;
      }
    }
    addText(text.slice(from));
  }
  block.last = line;
  blocks.push(block);
  return blocks;
}

/** The gutter of a block: its line numbers, one per line. */
export function lineNumbers(block: Pick<CodeBlock, "first" | "last">): string {
  const numbers: number[] = [];
  for (let n = block.first; n <= block.last; n++) numbers.push(n);
  return numbers.join("\n");
}
