import type { RiskTag } from "@/lib/risk/risk-tag";

/**
 * Arguments that contradict the state they rest on (a tool's stateChecks). Such a revision is
 * refused before any reviewer is asked; this says so first, with each finding and its fields.
 */
export function StateFindings({ tags }: { tags: RiskTag[] }) {
  const findings = tags.filter((tag) => tag.source === "state");
  if (findings.length === 0) return null;
  return (
    <section aria-labelledby="state-findings-title" className="mb-4 rounded-md border-l-4 border-red-600 bg-red-50 px-4 py-2 text-red-950">
      <h2 id="state-findings-title" className="font-semibold">Blocked: the arguments do not fit the state they rest on</h2>
      <ul className="mt-1 space-y-1 text-[0.85rem]">
        {findings.map((finding) => (
          <li key={finding.id} data-finding={finding.id}>
            <span className="font-mono text-[0.8rem] font-medium">{finding.id}</span>
            {finding.path && <span className="text-xs"> · {finding.path}</span>}
            <p>{finding.reason}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
