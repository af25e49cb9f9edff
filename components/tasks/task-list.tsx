import Link from "next/link";
import { TaskStatusBadge } from "@/components/tasks/task-status-badge";
import { formatUtc } from "@/components/ui/format";
import { PlannerLabel } from "@/components/tasks/planner-label";
import type { MyTask } from "@/lib/tasks/list-my-tasks";
import { DataTable } from "@/components/ui/data-table";

export function TaskList({ tasks, executed = new Map() }: { tasks: MyTask[]; /** Actions that reached execution, by task id. */ executed?: ReadonlyMap<string, number> }) {
  return (
    <DataTable caption="My tasks, newest first" columns={["Task", "Status", "Waiting for review", "Planner", "Started"]}
      className="w-full overflow-hidden rounded-lg border border-slate-200 bg-white text-left text-sm">
      {tasks.map((t) => (
        <tr key={t.id} className="border-t border-slate-100 align-top" data-testid="task-row">
          <td className="max-w-md px-3 py-2">
            <Link href={`/tasks/${t.id}`} className="font-medium text-indigo-700 hover:underline">{t.instruction}</Link>
          </td>
          <td className="px-3 py-2"><TaskStatusBadge status={t.status} executedActions={executed.get(t.id) ?? 0} /></td>
          <td className="px-3 py-2 text-slate-700">{t.pendingActions > 0 ? `${t.pendingActions} action${t.pendingActions === 1 ? "" : "s"}` : "—"}</td>
          <td className="px-3 py-2"><PlannerLabel planner={t.planner} /></td>
          <td className="whitespace-nowrap px-3 py-2 font-mono text-xs text-slate-600">{formatUtc(t.createdAt, false)}</td>
        </tr>
      ))}
    </DataTable>
  );
}
