import Link from "next/link";
import type { AgentsPause } from "@/lib/agents-pause/read-agents-pause";

/** On every console page while the stop button holds the organisation's agents. */
export function AgentsPausedBanner({ pause, canResume }: { pause: AgentsPause; canResume: boolean }) {
  const at = pause.at.toISOString();
  return (
    <div role="status" className="border-b border-red-300 bg-red-50 px-4 py-2 text-sm text-red-900">
      <p className="mx-auto max-w-7xl">
        <strong>Agents are paused</strong> since <time dateTime={at}>{at.slice(0, 16).replace("T", " ")} UTC</time>
        {pause.by && <> by {pause.by}</>}
        {pause.reason && <>: “{pause.reason}”</>}. New proposals are refused and approved actions wait.
        {canResume && (
          <>
            {" "}
            <Link href="/admin#stop-heading" className="font-medium underline">Resume on the admin page</Link>
          </>
        )}
      </p>
    </div>
  );
}
