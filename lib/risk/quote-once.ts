/**
 * Each untrusted passage quoted once: one passage can set off several findings (an injected note
 * that both overrides instructions and names an address), and the reviewer should read it once.
 * For each finding in order: the passage to quote, or the id of the finding above that quotes it.
 */
export function quoteOnce<T extends { id: string; quote?: string }>(tags: readonly T[]): Array<{ quote: string | null; quotedUnder: string | null }> {
  const firstUnder = new Map<string, string>();
  return tags.map((tag) => {
    if (!tag.quote) return { quote: null, quotedUnder: null };
    const under = firstUnder.get(tag.quote);
    if (under !== undefined) return { quote: null, quotedUnder: under };
    firstUnder.set(tag.quote, tag.id);
    return { quote: tag.quote, quotedUnder: null };
  });
}
