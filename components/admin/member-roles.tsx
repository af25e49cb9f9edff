"use client";

import { useState, useTransition } from "react";
import { buttonClass } from "@/components/ui/button";
import type { MemberListItem } from "@/lib/members/list-members";
import type { ActionResult } from "@/lib/server/boundary";
import { DataTable } from "@/components/ui/data-table";

const ROLES = ["requester", "reviewer", "auditor", "admin"] as const;
type RoleName = (typeof ROLES)[number];

const ROLE_HINT: Record<RoleName, string> = {
  requester: "starts agent tasks",
  reviewer: "approves or rejects actions",
  auditor: "reads and exports the audit log",
  admin: "manages members, policies and keys",
};

type SetRoles = (raw: unknown) => Promise<ActionResult<{ roles: RoleName[]; changed: boolean }>>;

function MemberRow({ member, isSelf, setRoles }: { member: MemberListItem; isSelf: boolean; setRoles: SetRoles }) {
  const [roles, setRolesState] = useState<RoleName[]>(member.roles);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [pending, startTransition] = useTransition();
  const dirty = [...roles].sort().join() !== [...member.roles].sort().join();

  function save(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setMessage(null);
    startTransition(async () => {
      const result = await setRoles({ membershipId: member.membershipId, roles });
      if (result.ok) setMessage({ ok: true, text: result.data.changed ? "Roles saved." : "Nothing changed." });
      else {
        setMessage({ ok: false, text: result.error.message });
        setRolesState(member.roles);
      }
    });
  }

  return (
    <tr className="border-t border-slate-100 align-top">
      <th scope="row" className="px-3 py-2 text-left font-normal">
        <span className="block font-medium">{member.name}{isSelf && <span className="ml-1 text-xs text-slate-500">(you)</span>}</span>
        <span className="font-mono text-xs text-slate-600">{member.email}</span>
        {member.disabled && <span className="ml-1 text-xs text-red-700">account disabled</span>}
        <span className="block text-xs text-slate-600">{member.passkeys > 0 ? `Passkey: ${member.passkeys} registered` : "No passkey"}</span>
      </th>
      <td className="px-3 py-2">
        <form onSubmit={save} aria-label={`Roles of ${member.email}`} className="flex flex-wrap items-center gap-x-4 gap-y-1">
          {ROLES.map((role) => (
            <label key={role} className="inline-flex items-center gap-1.5" title={ROLE_HINT[role]}>
              <input
                type="checkbox"
                name="roles"
                value={role}
                checked={roles.includes(role)}
                onChange={(e) => setRolesState((current) => (e.target.checked ? [...current, role] : current.filter((r) => r !== role)))}
                className="h-4 w-4 accent-indigo-700"
              />
              {role}
            </label>
          ))}
          <button type="submit" className={buttonClass.secondary} disabled={pending || !dirty}>
            {pending ? "Saving…" : "Save roles"}<span className="sr-only"> of {member.email}</span>
          </button>
          {roles.length === 0 && <span className="text-xs text-amber-800">No roles: this person cannot sign in to this organisation.</span>}
          {message && (
            <span role={message.ok ? "status" : "alert"} className={`text-sm ${message.ok ? "text-emerald-800" : "text-red-800"}`}>{message.text}</span>
          )}
        </form>
      </td>
    </tr>
  );
}

export function MemberRoles({ members, selfUserId, setRoles }: { members: MemberListItem[]; selfUserId: string; setRoles: SetRoles }) {
  return (
    <DataTable caption="Members and their roles" columns={["Member", "Roles"]}>
      {members.map((m) => (
        <MemberRow key={m.membershipId} member={m} isSelf={m.userId === selfUserId} setRoles={setRoles} />
      ))}
    </DataTable>
  );
}
