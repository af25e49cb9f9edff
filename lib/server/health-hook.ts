/**
 * How the console's server (console-server.ts, loaded outside Next.js's bundles) reaches the
 * health report of the app Next.js loaded: instrumentation.ts offers it here when the server
 * starts. One process-wide slot, so the answer comes from the same monitor the app's own modules use.
 */
export type HealthAnswer = () => Promise<{ httpStatus: number; report: unknown }>;

const SLOT = Symbol.for("countersign.healthAnswer");
const slot = globalThis as typeof globalThis & { [SLOT]?: HealthAnswer };

export function offerHealthAnswer(answer: HealthAnswer): void {
  slot[SLOT] = answer;
}

export function offeredHealthAnswer(): HealthAnswer | null {
  return slot[SLOT] ?? null;
}
