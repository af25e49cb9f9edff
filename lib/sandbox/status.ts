import { detectSandbox } from "./select-runner";
import type { SandboxIsolation } from "./spec";

export type SandboxStatus = {
  available: boolean;
  isolation: SandboxIsolation | null;
  reason: string;
};

/** What /api/health reports: which sandbox would run code now, or why none can. */
export async function sandboxStatus(): Promise<SandboxStatus> {
  try {
    const { available, isolation, reason } = await detectSandbox();
    return { available, isolation, reason };
  } catch (err) {
    return { available: false, isolation: null, reason: err instanceof Error ? err.message : String(err) };
  }
}
