import type { SessionListItem } from "@/lib/auth/list-sessions";
import { DataTable } from "@/components/ui/data-table";

const when = (date: Date) => `${date.toISOString().replace("T", " ").slice(0, 16)} UTC`;

/** The member's live sessions; the one in use is marked. Data comes from the page. */
export function SessionList({ sessions }: { sessions: SessionListItem[] }) {
  return (
    <DataTable caption="Your signed-in sessions" columns={["Browser", "From", "Signed in", "Last seen", "Ends"]}>
      {sessions.map((session) => (
        <tr key={session.id} className="border-t border-slate-100 align-top">
          <td className="px-3 py-2">
            <span className="block max-w-md truncate" title={session.userAgent ?? undefined}>{session.userAgent ?? "unknown browser"}</span>
            <span className="text-xs text-slate-600">
              {session.method === "oidc" ? "single sign-on" : "password"}
              {session.current && <strong className="ml-1 font-medium text-emerald-800">· this session</strong>}
            </span>
          </td>
          <td className="px-3 py-2 font-mono text-xs">{session.clientAddress ?? "unknown"}</td>
          <td className="px-3 py-2"><time dateTime={session.createdAt.toISOString()}>{when(session.createdAt)}</time></td>
          <td className="px-3 py-2"><time dateTime={session.lastSeenAt.toISOString()}>{when(session.lastSeenAt)}</time></td>
          <td className="px-3 py-2"><time dateTime={session.expiresAt.toISOString()}>{when(session.expiresAt)}</time></td>
        </tr>
      ))}
    </DataTable>
  );
}
