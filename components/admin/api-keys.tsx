"use client";

import { useState } from "react";
import { buttonClass } from "@/components/ui/button";
import { useServerAction } from "@/components/ui/use-server-action";
import type { ActionResult } from "@/lib/server/boundary";
import { DataTable } from "@/components/ui/data-table";
import { ItemButton } from "@/components/ui/item-button";
import { CheckboxSet } from "@/components/ui/checkbox-set";

export type ApiKeyRow = {
  id: string;
  name: string;
  prefix: string;
  allowedTools: string[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  pausedAt: string | null;
  /** Standing grants in force for the key's calls (listed under Standing grants). */
  grantsInForce: number;
};

type Create = (raw: unknown) => Promise<ActionResult<{ name: string; prefix: string; secret: string }>>;
type Revoke = (raw: unknown) => Promise<ActionResult<{ id: string }>>;
type SetPaused = (raw: unknown) => Promise<ActionResult<{ id: string }>>;

const when = (iso: string | null) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : "never");

/** The tenant's API keys: create one (its secret shown once), pause, resume or revoke the others. */
export function ApiKeys({ keys, tools, create, revoke, setPaused }: { keys: ApiKeyRow[]; tools: string[]; create: Create; revoke: Revoke; setPaused: SetPaused }) {
  const [name, setName] = useState("");
  const [allowed, setAllowed] = useState<string[]>([]);
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const { message, pending, run } = useServerAction({ refresh: true });

  function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setCreated(null);
    run(() => create({ name, allowedTools: allowed }), (data) => {
      // The secret lives only in this component's state: it is gone on reload, and the server keeps a hash.
      setCreated({ name: data.name, secret: data.secret });
      setName("");
      setAllowed([]);
    });
  }

  function revokeKey(key: ApiKeyRow) {
    if (!window.confirm(`Revoke the key “${key.name}” (${key.prefix})? Agents using it are refused from the next request.`)) return;
    run(() => revoke({ id: key.id }));
  }

  function togglePause(key: ApiKeyRow) {
    run(() => setPaused({ id: key.id, paused: !key.pausedAt }));
  }

  return (
    <div className="space-y-3">
      <CreateApiKeyForm tools={tools} name={name} setName={setName} allowed={allowed} setAllowed={setAllowed} pending={pending} error={message?.text ?? null} onSubmit={submit} />
      {created && <NewKeySecret created={created} />}
      {keys.length === 0 ? (
        <p className="rounded-md border border-dashed border-slate-300 px-4 py-6 text-center text-slate-600">
          No API keys yet. Create one above to let an external agent submit actions to <code>/api/v1/actions</code>.
        </p>
      ) : (
        <ApiKeyTable keys={keys} pending={pending} onTogglePause={togglePause} onRevoke={revokeKey} />
      )}
    </div>
  );
}

function CreateApiKeyForm({ tools, name, setName, allowed, setAllowed, pending, error, onSubmit }: {
  tools: string[];
  name: string;
  setName: (name: string) => void;
  allowed: string[];
  setAllowed: React.Dispatch<React.SetStateAction<string[]>>;
  pending: boolean;
  /** Why the last create, pause or revoke was refused. */
  error: string | null;
  onSubmit: (event: React.FormEvent<HTMLFormElement>) => void;
}) {
  return (
    <form onSubmit={onSubmit} aria-label="Create an API key" className="space-y-2 rounded-md border border-slate-200 p-3">
      <div className="flex flex-wrap items-end gap-3">
        <label className="block text-xs font-medium text-slate-700">
          Key name
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={64} placeholder="e.g. billing-bot" className="mt-0.5 block w-56 rounded-md border border-slate-300 px-2 py-1 text-sm" />
        </label>
        <CheckboxSet legend="Tools it may propose" options={tools.map((tool) => ({ value: tool, label: tool }))} chosen={allowed} setChosen={setAllowed}
          listClassName="gap-x-3" labelClassName="font-mono text-xs" />
        <button type="submit" className={buttonClass.primary} disabled={pending}>Create API key</button>
      </div>
      {error && <p role="alert" className="rounded-md bg-red-50 px-3 py-1.5 text-sm text-red-800">{error}</p>}
    </form>
  );
}

function NewKeySecret({ created }: { created: { name: string; secret: string } }) {
  return (
    <div role="status" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-amber-950">
      <p className="font-medium">Copy the secret for “{created.name}” now — it is shown only once and cannot be recovered.</p>
      <label className="mt-1 block text-xs font-medium">
        Secret
        <input readOnly value={created.secret} onFocus={(e) => e.target.select()} aria-label="New API key secret" className="mt-0.5 block w-full rounded border border-amber-300 bg-white px-2 py-1 font-mono text-sm" />
      </label>
      <p className="mt-1 text-xs">Agents send it as <code>Authorization: Bearer &lt;secret&gt;</code>.</p>
    </div>
  );
}

function ApiKeyTable({ keys, pending, onTogglePause, onRevoke }: { keys: ApiKeyRow[]; pending: boolean; onTogglePause: (key: ApiKeyRow) => void; onRevoke: (key: ApiKeyRow) => void }) {
  return (
    <DataTable caption="API keys" columns={["Name", "Prefix", "Tools", "Created", "Last used", "Grants", "State"]} actionsColumn>
      {keys.map((key) => (
        <tr key={key.id} className="border-t border-slate-100 align-top">
          <th scope="row" className="px-3 py-2 text-left font-medium">{key.name}</th>
          <td className="px-3 py-2 font-mono text-xs">{key.prefix}…</td>
          <td className="px-3 py-2 font-mono text-xs">{key.allowedTools.join(", ")}</td>
          <td className="whitespace-nowrap px-3 py-2 text-xs">{when(key.createdAt)}</td>
          <td className="whitespace-nowrap px-3 py-2 text-xs">{when(key.lastUsedAt)}</td>
          <td className="px-3 py-2 text-xs">{key.grantsInForce > 0 ? <a href="#grants" className="underline">{key.grantsInForce} in force</a> : "none"}</td>
          <td className="px-3 py-2"><KeyState apiKey={key} /></td>
          <td className="px-3 py-2 text-right">
            {!key.revokedAt && (
              <span className="inline-flex gap-2">
                <ItemButton item={key.name} disabled={pending} onClick={() => onTogglePause(key)}>{key.pausedAt ? "Resume" : "Pause"}</ItemButton>
                <ItemButton kind="reject" item={key.name} disabled={pending} onClick={() => onRevoke(key)}>Revoke</ItemButton>
              </span>
            )}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

function KeyState({ apiKey }: { apiKey: ApiKeyRow }) {
  if (apiKey.revokedAt) {
    return <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs font-medium text-slate-700 ring-1 ring-inset ring-slate-500/30">revoked {when(apiKey.revokedAt)}</span>;
  }
  if (apiKey.pausedAt) {
    return <span className="rounded bg-amber-50 px-1.5 py-0.5 text-xs font-medium text-amber-900 ring-1 ring-inset ring-amber-600/30">paused {when(apiKey.pausedAt)}</span>;
  }
  return <span className="rounded bg-emerald-50 px-1.5 py-0.5 text-xs font-medium text-emerald-800 ring-1 ring-inset ring-emerald-600/30">active</span>;
}
