import Link from "next/link";
import { RiskBadge } from "@/components/ui/badges";
import { TimeLeft } from "@/components/ui/time";
import type { ReviewQueue } from "@/lib/review/list-review-queue";

/** The reviewer's own requests: listed apart, because someone else must decide them. */
export function OwnRequests({ items }: { items: ReviewQueue["ownRequests"] }) {
  if (items.length === 0) return null;
  return (
    <section aria-labelledby="own-requests" className="mt-8">
      <h2 id="own-requests" className="font-semibold">Your own requests, waiting for another reviewer</h2>
      <p className="text-xs text-slate-600">You cannot decide actions you requested.</p>
      <ul className="mt-2 divide-y divide-slate-100 rounded-lg border border-slate-200 bg-white">
        {items.map((item) => (
          <li key={item.id} className="flex items-center gap-3 px-3 py-2">
            <RiskBadge level={item.riskLevel} />
            <Link href={`/actions/${item.id}`} className="min-w-0 flex-1 truncate text-indigo-800 hover:underline">
              <span className="font-mono text-[0.8rem]">{item.tool}</span> · {item.summary}
            </Link>
            <span className="text-xs text-slate-600"><TimeLeft until={item.expiresAt} /></span>
          </li>
        ))}
      </ul>
    </section>
  );
}
