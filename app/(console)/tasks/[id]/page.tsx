import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { z } from "zod";
import { getDb } from "@/lib/db/client";
import { requirePageMember } from "@/lib/server/acting-member";
import { getTaskTimeline } from "@/lib/tasks/get-task-timeline";
import { PageHeader } from "@/components/shell/page-header";
import { AutoRefresh } from "@/components/ui/auto-refresh";
import { TaskStatusBadge } from "@/components/tasks/task-status-badge";
import { executedActionCounts } from "@/lib/tasks/executed-action-counts";
import { formatUtc } from "@/components/ui/format";
import { PlannerLabel } from "@/components/tasks/planner-label";
import { TaskTimelineView } from "@/components/tasks/task-timeline";

export const metadata: Metadata = { title: "Task" };

export default async function TaskPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const member = await requirePageMember("tasks:use", `/tasks/${id}`);
  if (!z.uuid().safeParse(id).success) notFound();
  const timeline = await getTaskTimeline(getDb(), { tenantId: member.tenant.id, taskId: id, requesterUserId: member.user.id });
  if (!timeline) notFound();
  const executed = await executedActionCounts(getDb(), { tenantId: member.tenant.id, taskIds: [timeline.id] });
  return (
    <>
      <p className="mb-2 text-sm"><Link href="/tasks" className="text-indigo-700 hover:underline">← My tasks</Link></p>
      <PageHeader title={timeline.instruction} description={`Started ${formatUtc(timeline.createdAt)} · last change ${formatUtc(timeline.updatedAt)}`}>
        <div className="flex items-center gap-2">
          <TaskStatusBadge status={timeline.status} executedActions={executed.get(timeline.id) ?? 0} className="text-sm" />
          <PlannerLabel planner={timeline.planner} />
        </div>
      </PageHeader>
      <div className="max-w-4xl">
        <TaskTimelineView timeline={timeline} />
      </div>
      <AutoRefresh intervalMs={timeline.refreshMs} />
    </>
  );
}
