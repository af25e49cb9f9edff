import type { UpstreamToolView } from "@/lib/review/action-detail";

const HINTS = [
  { key: "readOnlyHint", yes: "reads only", no: "may change things" },
  { key: "destructiveHint", yes: "may destroy or overwrite", no: "only adds" },
  { key: "idempotentHint", yes: "repeating it changes nothing more", no: "repeating it may act again" },
  { key: "openWorldHint", yes: "reaches outside systems", no: "stays within its own system" },
] as const;

/**
 * What the reviewer approves for a call to an upstream MCP tool: the server, the tool's own name,
 * the description an admin approved for it and its hints (claims of its server, not facts: they
 * add risk tags, they never skip the review). Plain text only.
 */
export function UpstreamToolFacts({ upstream }: { upstream: UpstreamToolView }) {
  return (
    <dl className="space-y-2 text-[0.85rem]">
      <div className="flex flex-wrap gap-x-6 gap-y-1">
        <div>
          <dt className="text-xs text-slate-600">MCP server</dt>
          <dd className="font-mono">{upstream.server}</dd>
        </div>
        <div>
          <dt className="text-xs text-slate-600">Tool on that server</dt>
          <dd className="font-mono">{upstream.tool}{upstream.title ? <span className="font-sans text-slate-600"> ({upstream.title})</span> : null}</dd>
        </div>
      </div>
      <div>
        <dt className="text-xs text-slate-600">Approved description (what the agent was told the tool does)</dt>
        <dd className="whitespace-pre-wrap break-words rounded-md bg-slate-50 p-2 ring-1 ring-inset ring-slate-200">{upstream.description ?? "(the server gives no description)"}</dd>
      </div>
      <div>
        <dt className="text-xs text-slate-600">Annotations (hints from the server, unverified)</dt>
        <dd>
          <ul className="mt-0.5 flex flex-wrap gap-1.5" aria-label="Tool annotations">
            {HINTS.map(({ key, yes, no }) => (
              <li key={key} className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-800">
                <span className="font-mono">{key}</span>:{" "}
                {key === "destructiveHint" && upstream.hints.readOnlyHint ? "does not apply to a read-only tool" : upstream.hints[key] ? yes : no}
                {!upstream.hintsGiven.includes(key) && <span className="text-slate-500"> (not given: default)</span>}
              </li>
            ))}
          </ul>
        </dd>
      </div>
      <div>
        <dt className="text-xs text-slate-600">Pinned definition hash</dt>
        <dd className="break-all font-mono text-[0.78rem]">{upstream.definitionHash}</dd>
      </div>
    </dl>
  );
}
