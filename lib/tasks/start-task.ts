import { randomUUID } from "node:crypto";
import { z } from "zod";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { auditBodyOf } from "@/lib/audit/append-audit-event";
import { insertTask } from "@/lib/db/statements/tasks/insert-task";
import { AGENT_SYSTEM_PROMPT } from "@/lib/agent/system-prompt";
import type { RunState } from "@/lib/tasks/run-state";

export const InstructionSchema = z.string().trim().min(3, "Describe the task in a few words.").max(4000, "Keep the instruction under 4,000 characters.");

/**
 * A requester's instruction becomes a task for a worker, with its audit event, in one statement.
 * `planner` ("offline", or the providers) labels who drives it.
 */
export async function startTask(
  db: Db,
  input: { tenantId: string; requester: { userId: string; label: string }; instruction: string; planner: string },
): Promise<{ taskId: string }> {
  const parsed = InstructionSchema.safeParse(input.instruction);
  if (!parsed.success) throw new AppError("invalid_instruction", parsed.error.issues[0]?.message ?? "Invalid instruction.", 400);
  const runState: RunState = {
    v: 1,
    messages: [
      { role: "system", content: AGENT_SYSTEM_PROMPT },
      { role: "user", content: parsed.data },
    ],
    pending: [],
    untrusted: [],
  };
  const taskId = randomUUID();
  await insertTask(db, {
    taskId, tenantId: input.tenantId, requesterUserId: input.requester.userId, instruction: parsed.data, planner: input.planner,
    runState: runState as unknown as JsonObject,
    started: auditBodyOf({
      tenantId: input.tenantId, actor: { type: "user", id: input.requester.userId, label: input.requester.label },
      type: "task.started", outcome: "ok", subject: { type: "task", id: taskId }, requester: input.requester.label,
      status: "queued", data: { planner: input.planner, instructionLength: parsed.data.length },
    }),
  });
  void requestSeal(db, input.tenantId);
  return { taskId };
}
