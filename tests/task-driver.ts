import type { Db } from "@/lib/db/client";
import type { ChatModel } from "@/lib/agent/model";
import { claimNextTask, runClaimedTask } from "@/lib/tasks/task-worker";

/** Runs one worker's loop until no task is runnable (tests drive the loop deterministically). */
export async function driveUntilIdle(db: Db, model: ChatModel, workerId = "test-worker", maxClaims = 50): Promise<number> {
  let claims = 0;
  for (; claims < maxClaims; claims++) {
    const task = await claimNextTask(db, workerId);
    if (!task) return claims;
    await runClaimedTask(db, task, model);
  }
  throw new Error("the task loop did not settle");
}
