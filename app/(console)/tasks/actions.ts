"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { configuredModel } from "@/lib/agent/providers";
import { getDb } from "@/lib/db/client";
import { memberAction, type ActionResult } from "@/lib/server/boundary";
import { startTask } from "@/lib/tasks/start-task";

const StartTaskSchema = z.strictObject({ instruction: z.string().max(10_000, "Keep the instruction under 4,000 characters.") });

const start = memberAction({ name: "tasks.start", permission: "tasks:use", input: StartTaskSchema }, async ({ instruction }, member) => {
  const result = await startTask(getDb(), {
    tenantId: member.tenant.id,
    requester: { userId: member.user.id, label: member.user.email },
    instruction,
    planner: configuredModel().id,
  });
  revalidatePath("/tasks");
  return result;
});

/** Starts a task for the acting requester; the instruction is validated by startTask (errors in words). */
export async function startTaskAction(raw: unknown): Promise<ActionResult<{ taskId: string }>> {
  return start(raw);
}
