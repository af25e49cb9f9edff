/** The delay before attempt `attempts + 1`: exponential from the base, capped at an hour, ±50 % jitter. */
export function retryDelayMs(attempts: number, baseMs: number, random: () => number = Math.random): number {
  const exponential = Math.min(baseMs * 2 ** Math.max(0, attempts - 1), 3_600_000);
  return Math.round(exponential * (0.5 + random()));
}
