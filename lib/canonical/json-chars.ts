/**
 * About how many characters `value` takes as JSON, walked without recursion and given up past
 * `limit` (then `limit + 1`), so its cost is bounded by the limit, not the value: to size a value
 * someone else built before work that grows with it. A bound, not exact for escapes.
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
