/** Who drove the run: the built-in offline planner is always labelled as such. */
export function PlannerLabel({ planner }: { planner: string }) {
  if (planner === "offline") {
    return (
      <span
        title="No language model is configured; the built-in planner drives the demo scenarios."
        className="inline-flex items-center rounded bg-slate-800 px-1.5 py-0.5 text-xs font-medium text-white"
      >
        Offline planner
      </span>
    );
  }
  return <span className="inline-flex items-center rounded bg-violet-50 px-1.5 py-0.5 text-xs font-medium text-violet-900 ring-1 ring-inset ring-violet-600/30">Model: {planner}</span>;
}
