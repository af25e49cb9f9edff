/** "2026-11-29 14:03:07 UTC": one unambiguous format for server-rendered times. */
export function formatUtc(date: Date | string | null | undefined, withSeconds = true): string {
  if (!date) return "—";
  const iso = (typeof date === "string" ? new Date(date) : date).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, withSeconds ? 19 : 16)} UTC`;
}
