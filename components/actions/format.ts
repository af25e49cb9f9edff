/** "2026-11-29 14:03 UTC": one unambiguous, hydration-safe format for times on the action page. */
export function formatUtcTime(iso: string | null): string {
  if (!iso) return "—";
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
