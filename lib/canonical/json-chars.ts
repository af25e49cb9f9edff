/**
 * About how many characters `value` takes as JSON text (each string's length, each key's, and the
 * punctuation), walked without recursion and given up as soon as it passes `limit`: the answer
 * is then `limit + 1`. Its cost is bounded by the limit, not by the value (but for one object's
 * keys, which are enumerated whole: no more than the message it was parsed from holds) — for
 * checking the size of a value someone else built (a parsed upstream listing) before any work
 * that grows with it.
 * Not exact for escapes (a string counts as its length plus its quotes); a bound, not a serializer.
 */
export function jsonCharsAtMost(value: unknown, limit: number): number {
  let chars = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === "string") chars += item.length + 2;
    else if (typeof item === "number" || typeof item === "boolean" || item === null) chars += 5;
    else if (Array.isArray(item)) {
      chars += 1 + item.length;
      for (let i = 0; i < item.length && chars <= limit; i++) stack.push(item[i]);
    } else if (typeof item === "object") {
      chars += 1;
      for (const key in item) {
        if (!Object.hasOwn(item, key)) continue;
        chars += key.length + 4;
        stack.push((item as Record<string, unknown>)[key]);
        if (chars > limit) break;
      }
    } else chars += 1;
    if (chars > limit) return limit + 1;
  }
  return chars;
}
