import { computeTask } from "@/lib/compute/compute-pool";
import type * as Tasks from "@/lib/mcp/upstream/compute-tasks";

export const checkUpstreamArgsTask = computeTask<typeof Tasks, "checkUpstreamArgs">("lib/mcp/upstream/compute-tasks.ts", "checkUpstreamArgs");
