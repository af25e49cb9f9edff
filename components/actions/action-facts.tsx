import Link from "next/link";
import type { ActionDetail } from "@/lib/review/action-detail";
import { TimeLeft } from "@/components/ui/time";
import { formatUtcTime } from "@/components/actions/format";
import { describeBudgetLine } from "@/lib/policy/budget-standing";

/** The action's facts in one row under its title: tool, requester, task, approvals, expiry, age. */
export function ActionFacts({ action }: { action: ActionDetail }) {
  return (
    <dl className="mb-4 grid grid-cols-2 gap-x-6 gap-y-2 rounded-lg border border-slate-200 bg-white px-4 py-3 text-[0.85rem] sm:grid-cols-3 lg:grid-cols-6">
      <Fact label="Tool"><span className="font-mono">{action.tool}</span></Fact>
      <Fact label="Requester">{action.requesterLabel}</Fact>
      <Fact label="Task">
        {action.task ? (
          <Link href={`/tasks/${action.task.id}`} className="text-indigo-800 underline decoration-slate-300 hover:decoration-indigo-700">
            {action.task.instruction.length > 60 ? `${action.task.instruction.slice(0, 59)}…` : action.task.instruction}
          </Link>
        ) : (
          <span className="text-slate-500">none (submitted directly)</span>
        )}
      </Fact>
      <Fact label="Approvals">
        <span className="font-semibold">{action.approvals}</span> of {action.quorum} · {action.eligibleRoles.join(" or ")}
      </Fact>
      <Fact label="Expires">
        {action.status === "pending" || action.status === "approved" ? <TimeLeft until={action.expiresAt} /> : formatUtcTime(action.expiresAt)}
      </Fact>
      <Fact label="Proposed">{formatUtcTime(action.createdAt)}</Fact>
      {action.current.policyDecision.budgets?.map((line, i) => (
        // As judged for this revision, this call included when it counts (lib/approvals/budgeted-proposals.ts).
        <div key={i} className="col-span-2 min-w-0">
          <dt className="text-xs text-slate-500">Budget</dt>
          <dd data-testid="budget-line">{describeBudgetLine(line, action.tool)}</dd>
        </div>
      ))}
    </dl>
  );
}

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-slate-500">{label}</dt>
      <dd className="truncate">{children}</dd>
    </div>
  );
}
