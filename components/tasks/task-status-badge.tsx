import { StatusBadge } from "@/components/ui/badges";

/**
 * A task's status; a task that completed without any action executing reads "completed — nothing
 * executed" in neutral grey, not the green of a task that did something.
 */
export function TaskStatusBadge({ status, executedActions, className = "" }: { status: string; executedActions: number; className?: string }) {
  if (status === "completed" && executedActions === 0) {
    return (
      <span className={`inline-flex items-center rounded px-1.5 py-0.5 text-xs font-medium text-slate-800 ring-1 ring-inset ring-slate-500/40 bg-slate-100 ${className}`}
        title="The task ended without any action executing: nothing changed.">
        completed — nothing executed
      </span>
    );
  }
  return <StatusBadge status={status} className={className} />;
}
