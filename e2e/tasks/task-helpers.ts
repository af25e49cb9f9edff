import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";
import { decideAction } from "@/lib/approvals/decide-action";
import type { Verdict } from "@/lib/generated/prisma/enums";
import { startTask } from "@/lib/tasks/start-task";
import type { TestTenant, TestUser } from "@/tests/factories";
import { e2eDb } from "@/e2e/support/runtime";

/** Starts a task through the page, as a requester would; returns its id from the URL it lands on. */
export async function startTaskInUi(page: Page, instruction: string): Promise<string> {
  await page.goto("/tasks");
  await page.getByLabel("Task instruction").fill(instruction);
  await page.getByRole("button", { name: "Start task" }).click();
  await page.waitForURL(/\/tasks\/[0-9a-f-]{36}$/);
  return page.url().split("/").pop() as string;
}

/** Starts a task directly (for tests whose subject is not the tasks page); the server's worker runs it. */
export async function startTaskInDb(tenant: TestTenant, instruction: string): Promise<string> {
  const { taskId } = await startTask(e2eDb(), {
    tenantId: tenant.id, requester: { userId: tenant.users.requester.id, label: tenant.users.requester.email }, instruction, planner: "offline",
  });
  return taskId;
}

/** Waits for the worker to propose a pending action of `tool` in the task (the oldest one). */
export async function pendingAction(taskId: string, tool: string, timeout = 30_000) {
  const find = () => e2eDb().action.findFirst({ where: { taskId, tool, status: "pending" }, orderBy: { createdAt: "asc" } });
  await expect.poll(async () => (await find()) !== null, { timeout, message: `a pending ${tool} action in task ${taskId}` }).toBe(true);
  const action = await find();
  if (!action) throw new Error(`the pending ${tool} action of task ${taskId} vanished`);
  return action;
}

export async function decide(tenant: TestTenant, action: { id: string; payloadHash: string }, reviewer: TestUser, verdict: Verdict, note?: string) {
  return decideAction(e2eDb(), { tenantId: tenant.id, actionId: action.id, reviewer: reviewer.member, verdict, note, payloadHash: action.payloadHash });
}

export async function taskStatus(taskId: string, status: string, timeout = 30_000) {
  await expect.poll(async () => (await e2eDb().task.findUniqueOrThrow({ where: { id: taskId } })).status, { timeout }).toBe(status);
}

/** No serious or critical accessibility violations on the page as it is now. */
export async function expectNoSeriousA11yViolations(page: Page) {
  const result = await new AxeBuilder({ page }).analyze();
  const serious = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join("; ")})`)).toEqual([]);
}
