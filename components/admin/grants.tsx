"use client";

import Link from "next/link";
import { useServerAction } from "@/components/ui/use-server-action";
import type { ActionResult } from "@/lib/server/boundary";
import type { GrantListing } from "@/lib/grants/list-grants";
import { DataTable } from "@/components/ui/data-table";
import { ItemButton } from "@/components/ui/item-button";

type Revoke = (raw: unknown) => Promise<ActionResult<{ id: string }>>;

const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** Standing grants by key: what each lets through without review, what is used, and Revoke (at once). */
export function Grants({ grants, revoke }: { grants: GrantListing[]; revoke: Revoke }) {
  const { message, pending, run } = useServerAction({ refresh: true });
  function revokeGrant(grant: GrantListing) {
    if (!window.confirm(`Revoke the grant for ${grant.tool} (${grant.scope})? Its next calls wait for review.`)) return;
    run(() => revoke({ id: grant.id }));
  }
  if (grants.length === 0) {
    return <p className="rounded-md border border-dashed border-slate-300 px-4 py-6 text-center text-slate-600">No standing grants. Reviewers approve them with an action (“Also approve calls like this one”).</p>;
  }
  return (
    <div className="space-y-2">
      {message && <p role="alert" className="rounded-md bg-red-50 px-3 py-1.5 text-sm text-red-800">{message.text}</p>}
      <DataTable caption="Grants by key" columns={["Scope", "Tool", "Calls like", "Used", "Until", "State"]} actionsColumn>
        {grants.map((grant) => (
          <tr key={grant.id} className="border-t border-slate-100 align-top" data-testid="grant-row">
            <th scope="row" className="px-3 py-2 text-left font-medium">{grant.scope}</th>
            <td className="px-3 py-2 font-mono text-xs">{grant.tool}</td>
            <td className="px-3 py-2 text-xs">
              {grant.description} <Link href={`/actions/${grant.sourceActionId}`} className="underline">(from this action)</Link>
              <code className="mt-0.5 block text-slate-600">{grant.constraint}</code>
            </td>
            <td className="px-3 py-2 text-xs">{grant.calls}{grant.total && <span className="block">{grant.total}</span>}</td>
            <td className="whitespace-nowrap px-3 py-2 text-xs">{when(grant.expiresAt)}</td>
            <td className="px-3 py-2 text-xs">{grant.state}</td>
            <td className="px-3 py-2 text-right">
              {grant.state === "active" && <ItemButton kind="reject" item={`grant for ${grant.tool}`} disabled={pending} onClick={() => revokeGrant(grant)}>Revoke</ItemButton>}
            </td>
          </tr>
        ))}
      </DataTable>
    </div>
  );
}
