export type TextSize = { lines: number; characters: number };

/** A text's size as a collapsible block needs it, so the text itself need not go to the client. */
export function textSize(text: string): TextSize {
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return { lines, characters: text.length };
}
