/** "2026-11-29 14:03:07 UTC": one unambiguous format for server-rendered times. */
export function formatUtc(date: Date | string | null | undefined, withSeconds = true): string {
  if (!date) return "—";
  const iso = (typeof date === "string" ? new Date(date) : date).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, withSeconds ? 19 : 16)} UTC`;
}

/** "45s", "3m 20s", "2h 5m", "1d 4h" (server-safe; the live countdown lives in time.tsx). */
export function formatSeconds(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86_400)}d ${Math.floor((s % 86_400) / 3600)}h`;
}
