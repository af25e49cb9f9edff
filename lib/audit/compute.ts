import { computeTask } from "@/lib/compute/compute-pool";
import type * as Tasks from "@/lib/audit/compute-tasks";

export const sealTreesTask = computeTask<typeof Tasks, "sealTrees">("lib/audit/compute-tasks.ts", "sealTrees");
