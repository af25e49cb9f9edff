import { computeTask } from "@/lib/compute/compute-pool";
import type * as Tasks from "@/lib/approvals/compute-tasks";

export const judgePayloadTask = computeTask<typeof Tasks, "judgePayload">("lib/approvals/compute-tasks.ts", "judgePayload");
export const hashRevisionTask = computeTask<typeof Tasks, "hashRevision">("lib/approvals/compute-tasks.ts", "hashRevision");
export const diffRevisionTask = computeTask<typeof Tasks, "diffRevision">("lib/approvals/compute-tasks.ts", "diffRevision");
export const compareStatesTask = computeTask<typeof Tasks, "compareStates">("lib/approvals/compute-tasks.ts", "compareStates");
