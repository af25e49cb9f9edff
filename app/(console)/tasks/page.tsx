import type { Metadata } from "next";
import Link from "next/link";
import { getDb } from "@/lib/db/client";
import { requirePageMember } from "@/lib/server/acting-member";
import { EmptyState, PageHeader } from "@/components/shell/page-header";

export const metadata: Metadata = { title: "Tasks" };

export default async function TasksPage() {
  const member = await requirePageMember("tasks:use", "/tasks");
  const tasks = await getDb().task.findMany({
    where: { tenantId: member.tenant.id, requesterUserId: member.user.id },
    select: { id: true, instruction: true, status: true, planner: true, createdAt: true },
    orderBy: { createdAt: "desc" },
    take: 50,
  });
  return (
    <>
      <PageHeader title="Tasks" description="Ask an agent to do something; actions that need approval wait for a reviewer." />
      {tasks.length === 0 ? (
        <EmptyState title="No tasks yet">Start a task in plain language, for example “Send a payment reminder for INV-1042”.</EmptyState>
      ) : (
        <ul className="divide-y divide-slate-100 rounded-lg border border-slate-200 bg-white">
          {tasks.map((t) => (
            <li key={t.id} className="flex items-center justify-between px-4 py-2">
              <Link href={`/tasks/${t.id}`} className="font-medium text-indigo-700 hover:underline">{t.instruction}</Link>
              <span className="text-slate-600">{t.status.replace("_", " ")}</span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
