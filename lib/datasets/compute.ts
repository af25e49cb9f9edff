import { computeTask } from "@/lib/compute/compute-pool";
import type * as Tasks from "@/lib/datasets/compute-tasks";

export const datasetFilesTask = computeTask<typeof Tasks, "datasetFiles">("lib/datasets/compute-tasks.ts", "datasetFiles");
