import { computeTask } from "@/lib/compute/compute-pool";
import type * as Tasks from "@/lib/review/compute-tasks";

export const revealTextsTask = computeTask<typeof Tasks, "revealTexts">("lib/review/compute-tasks.ts", "revealTexts");
export const resultTextsTask = computeTask<typeof Tasks, "resultTexts">("lib/review/compute-tasks.ts", "resultTexts");
