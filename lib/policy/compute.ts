import { computeTask } from "@/lib/compute/compute-pool";
import type * as Tasks from "@/lib/policy/compute-tasks";

export const dryRunPolicyTask = computeTask<typeof Tasks, "dryRunPolicy">("lib/policy/compute-tasks.ts", "dryRunPolicy");
export const replayRecordedPolicyTask = computeTask<typeof Tasks, "replayRecordedPolicy">("lib/policy/compute-tasks.ts", "replayRecordedPolicy", { prepare: "loadReplay" });
export const checkPolicyTask = computeTask<typeof Tasks, "checkPolicy">("lib/policy/compute-tasks.ts", "checkPolicy");
