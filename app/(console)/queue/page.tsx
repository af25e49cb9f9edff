import type { Metadata } from "next";
import Link from "next/link";
import { getDb } from "@/lib/db/client";
import { requirePageMember } from "@/lib/server/acting-member";
import { listReviewQueue } from "@/lib/review/list-review-queue";
import { decodeQueueCursor } from "@/lib/review/queue-item";
import { EmptyState, PageHeader } from "@/components/shell/page-header";
import { QueueList } from "@/components/queue/queue-list";
import { OwnRequests } from "@/components/queue/own-requests";

export const metadata: Metadata = { title: "Review queue" };

export default async function QueuePage({ searchParams }: { searchParams: Promise<{ after?: string | string[] }> }) {
  const member = await requirePageMember("queue:review", "/queue");
  const { after } = await searchParams;
  const cursor = decodeQueueCursor(typeof after === "string" ? after : null);
  const queue = await listReviewQueue(getDb(), { tenantId: member.tenant.id, userId: member.user.id, roles: member.roles }, { after: cursor });
  return (
    <>
      <PageHeader title="Review queue" description={`Pending actions you may decide in ${member.tenant.name}: riskiest first, then soonest to expire.`}>
        <p className="text-xs text-slate-500" aria-live="polite">Updates every few seconds</p>
      </PageHeader>
      {queue.items.length === 0 ? (
        <EmptyState title={cursor ? "No more actions on this page" : "Nothing waits for your decision"}>
          {cursor ? (
            <Link href="/queue" className="font-medium text-indigo-700 underline">Back to the first page</Link>
          ) : (
            <>
              When an agent proposes an action that needs a reviewer with your role, it appears here within seconds — you do
              not need to reload. Actions you requested yourself are listed below, because another reviewer must decide them.
            </>
          )}
        </EmptyState>
      ) : (
        <QueueList items={queue.items} />
      )}
      {(cursor || queue.next) && (
        <nav aria-label="Queue pages" className="mt-3 flex justify-between text-sm">
          {cursor ? <Link href="/queue" className="font-medium text-indigo-700 hover:underline">← First page</Link> : <span />}
          {queue.next && <Link href={`/queue?after=${queue.next}`} className="font-medium text-indigo-700 hover:underline">Next page →</Link>}
        </nav>
      )}
      <OwnRequests items={queue.ownRequests} />
    </>
  );
}
