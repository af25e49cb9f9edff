/**
 * Durations in a policy, written the way people say them: `90s`, `30m`, `2h`, `1d`, or parts
 * together largest first (`1h30m`). Whole seconds; nothing else is a duration.
 */
const UNIT_SECONDS = { d: 86_400, h: 3_600, m: 60, s: 1 } as const;
const DURATION = /^(?:(\d{1,4})d)?(?:(\d{1,4})h)?(?:(\d{1,5})m)?(?:(\d{1,7})s)?$/;

export const DURATION_HINT = "a duration like 90s, 30m, 2h, 1d or 1h30m";

/** The duration's seconds, or null when the text is not a duration (or is zero). */
export function parsePolicyDuration(text: string): number | null {
  const match = DURATION.exec(text.trim());
  if (!match || text.trim() === "") return null;
  const [, d, h, m, s] = match;
  const seconds = Number(d ?? 0) * UNIT_SECONDS.d + Number(h ?? 0) * UNIT_SECONDS.h + Number(m ?? 0) * UNIT_SECONDS.m + Number(s ?? 0);
  return seconds > 0 ? seconds : null;
}

/** Seconds as the shortest policy duration that says them, e.g. 5400 → "1h30m". */
export function formatPolicyDuration(seconds: number): string {
  let rest = seconds;
  let out = "";
  for (const [unit, size] of Object.entries(UNIT_SECONDS)) {
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out || "0s";
}
