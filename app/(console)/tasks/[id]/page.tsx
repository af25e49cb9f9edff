import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { z } from "zod";
import { getDb } from "@/lib/db/client";
import { requirePageMember } from "@/lib/server/acting-member";
import { PageHeader } from "@/components/shell/page-header";

export const metadata: Metadata = { title: "Task" };

export default async function TaskPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const member = await requirePageMember("tasks:use", `/tasks/${id}`);
  if (!z.uuid().safeParse(id).success) notFound();
  const task = await getDb().task.findFirst({
    where: { id, tenantId: member.tenant.id, requesterUserId: member.user.id },
    select: { instruction: true, status: true, finalAnswer: true },
  });
  if (!task) notFound();
  return (
    <>
      <PageHeader title={task.instruction} description={`Status: ${task.status.replace("_", " ")}`} />
      {task.finalAnswer && <p className="rounded-lg border border-slate-200 bg-white p-4 whitespace-pre-wrap">{task.finalAnswer}</p>}
    </>
  );
}
