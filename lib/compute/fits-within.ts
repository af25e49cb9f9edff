/**
 * Plain data this small may be canonicalised, hashed or judged in the request thread (tens of
 * microseconds); a trip to the compute pool costs ~0.4 ms of CPU, and is kept for larger input,
 * whose time it budgets (the 50 ms rule).
 */
export const INLINE_CHARS = 4_096;

/**
 * Whether `value` (plain data) holds at most `limit` characters of strings, keys and scalars, counted
 * without serialising it: the walk stops as soon as the limit is passed, so it costs at most that
 * much whatever the value's size. Deciding whether work on a value may run in the request thread.
 */
export function fitsWithin(value: unknown, limit: number): boolean {
  let left = limit;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === "string") left -= item.length + 2;
    else if (Array.isArray(item)) {
      left -= 2 + item.length;
      if (left < 0) return false;
      for (const element of item) stack.push(element);
    } else if (item !== null && typeof item === "object") {
      const keys = Object.keys(item);
      left -= 2 + keys.length;
      if (left < 0) return false;
      for (const key of keys) {
        const element = (item as Record<string, unknown>)[key];
        left -= key.length + 3;
        stack.push(element);
      }
    } else left -= 8;
    if (left < 0) return false;
  }
  return true;
}
