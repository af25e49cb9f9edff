import type { Metadata } from "next";
import { getDb } from "@/lib/db/client";
import { requirePageMember } from "@/lib/server/acting-member";
import { ACTIVE_TASK_STATUSES, listMyTasks } from "@/lib/tasks/list-my-tasks";
import { executedActionCounts } from "@/lib/tasks/executed-action-counts";
import { EmptyState, PageHeader } from "@/components/shell/page-header";
import { AutoRefresh } from "@/components/ui/auto-refresh";
import { StartTaskForm } from "@/components/tasks/start-task-form";
import { TaskList } from "@/components/tasks/task-list";
import { startTaskAction } from "./actions";

export const metadata: Metadata = { title: "Tasks" };

export default async function TasksPage() {
  const member = await requirePageMember("tasks:use", "/tasks");
  const tasks = await listMyTasks(getDb(), { tenantId: member.tenant.id, requesterUserId: member.user.id });
  const executed = await executedActionCounts(getDb(), { tenantId: member.tenant.id, taskIds: tasks.map((t) => t.id) });
  const anyActive = tasks.some((t) => ACTIVE_TASK_STATUSES.includes(t.status));
  return (
    <>
      <PageHeader title="Tasks" description="Ask an agent to do something; actions that need approval wait for a reviewer." />
      <div className="space-y-5">
        <StartTaskForm start={startTaskAction} />
        <section aria-labelledby="my-tasks-heading">
          <h2 id="my-tasks-heading" className="mb-2 font-semibold">My tasks</h2>
          {tasks.length === 0 ? (
            <EmptyState title="No tasks yet">Type an instruction above and press “Start task”, for example “Send a payment reminder for INV-1042”.</EmptyState>
          ) : (
            <TaskList tasks={tasks} executed={executed} />
          )}
        </section>
      </div>
      <AutoRefresh intervalMs={anyActive ? 2_000 : null} />
    </>
  );
}
