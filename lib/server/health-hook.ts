/**
 * How console-server.ts (loaded outside Next.js's bundles) reaches the app's health report:
 * instrumentation.ts offers it here at start, in one process-wide slot.
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
