"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { StatusBadge } from "@/components/ui/badges";
import { buttonClass } from "@/components/ui/button";
import type { McpServerRow, McpToolRow } from "@/lib/mcp/upstream/list-mcp-servers";
import type { McpListing } from "@/lib/mcp/upstream/refresh-mcp-server";
import type { ActionResult } from "@/lib/server/boundary";
import { DataTable } from "@/components/ui/data-table";
import { ItemButton } from "@/components/ui/item-button";

type Register = (raw: unknown) => Promise<ActionResult<{ serverId: string; name: string; listing: McpListing }>>;
type Refresh = (raw: unknown) => Promise<ActionResult<McpListing>>;
type Approve = (raw: unknown) => Promise<ActionResult<{ qualifiedName: string }>>;
type Remove = (raw: unknown) => Promise<ActionResult<{ name: string }>>;
type ReplaceSecrets = (raw: unknown) => Promise<ActionResult<{ secretNames: string[] }>>;

export type McpServerActions = { register: Register; refresh: Refresh; approve: Approve; remove: Remove; replaceSecrets: ReplaceSecrets };

const when = (iso: string | null) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : "never");
const inputClass = "mt-0.5 block w-full rounded-md border border-slate-300 px-2 py-1 text-sm";

type Message = { ok: boolean; text: string } | null;

function listingText(server: string, listing: McpListing): { ok: boolean; text: string } {
  if (!listing.ok) return { ok: false, text: listing.message };
  const parts = [`${listing.listed} tool${listing.listed === 1 ? "" : "s"} listed`];
  if (listing.added.length) parts.push(`${listing.added.length} new, waiting for approval`);
  if (listing.held.length) parts.push(`held because their server changed them: ${listing.held.join(", ")}`);
  if (listing.gone.length) parts.push(`no longer listed: ${listing.gone.join(", ")}`);
  if (listing.skipped.length) parts.push(`not pinnable: ${listing.skipped.join("; ")}`);
  return { ok: listing.held.length === 0, text: `${server}: ${parts.join(" · ")}.` };
}

function Feedback({ message }: { message: Message }) {
  if (!message) return null;
  return (
    <p role={message.ok ? "status" : "alert"} className={`rounded-md px-3 py-1.5 text-sm ${message.ok ? "bg-emerald-50 text-emerald-900" : "bg-red-50 text-red-900"}`}>
      {message.text}
    </p>
  );
}

type SecretRow = { name: string; value: string };

function SecretRows({ rows, setRows, transport, keepable = [] }: { rows: SecretRow[]; setRows: (rows: SecretRow[]) => void; transport: "http" | "stdio"; keepable?: string[] }) {
  const noun = transport === "http" ? "Header" : "Variable";
  return (
    <fieldset className="space-y-1">
      <legend className="text-xs font-medium text-slate-700">
        Secrets ({transport === "http" ? "request headers, e.g. Authorization" : "environment variables"}) — sealed when saved, never shown again
      </legend>
      {rows.map((row, i) => (
        <div key={i} className="flex flex-wrap items-end gap-2">
          <label className="block text-xs text-slate-700">
            {noun} name {i + 1}
            <input value={row.name} onChange={(e) => setRows(rows.map((r, j) => (j === i ? { ...r, name: e.target.value } : r)))} autoComplete="off" spellCheck={false} className={`${inputClass} w-56 font-mono`} />
          </label>
          <label className="block text-xs text-slate-700">
            Value {i + 1}
            <input
              type="password" value={row.value} onChange={(e) => setRows(rows.map((r, j) => (j === i ? { ...r, value: e.target.value } : r)))}
              autoComplete="new-password" placeholder={keepable.includes(row.name) ? "(keep the current value)" : ""} className={`${inputClass} w-72`}
            />
          </label>
          <ItemButton item={`secret ${i + 1}`} onClick={() => setRows(rows.filter((_, j) => j !== i))}>Remove</ItemButton>
        </div>
      ))}
      <button type="button" className={buttonClass.secondary} onClick={() => setRows([...rows, { name: "", value: "" }])}>Add a secret</button>
    </fieldset>
  );
}

/** Registering a server: its tools are listed at once, and wait for an admin's approval. */
export function RegisterMcpServer({ stdioCommands, register }: { stdioCommands: string[]; register: Register }) {
  const router = useRouter();
  const [name, setName] = useState("");
  const [transport, setTransport] = useState<"http" | "stdio">("http");
  const [url, setUrl] = useState("");
  const [command, setCommand] = useState(stdioCommands[0] ?? "");
  const [args, setArgs] = useState("");
  const [secrets, setSecrets] = useState<SecretRow[]>([]);
  const [message, setMessage] = useState<Message>(null);
  const [pending, startTransition] = useTransition();

  function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setMessage(null);
    const filled = secrets.filter((s) => s.name.trim() || s.value);
    const server = transport === "http"
      ? { name, transport, url, secrets: filled }
      : { name, transport, command, args: args.split("\n").map((a) => a.trim()).filter(Boolean), secrets: filled };
    startTransition(async () => {
      const result = await register(server);
      if (!result.ok) {
        setMessage({ ok: false, text: result.error.message });
        return;
      }
      const listed = listingText(result.data.name, result.data.listing);
      setMessage({ ok: result.data.listing.ok, text: `Registered ${result.data.name}. ${listed.text}` });
      setName("");
      setUrl("");
      setArgs("");
      setSecrets([]);
      router.refresh();
    });
  }

  return (
    <form onSubmit={submit} aria-label="Register an MCP server" className="space-y-3">
      <div className="flex flex-wrap items-end gap-3">
        <label className="block text-xs font-medium text-slate-700">
          Server name
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={32} placeholder="e.g. github" spellCheck={false} className={`${inputClass} w-48 font-mono`} />
        </label>
        <TransportChoice transport={transport} onChange={setTransport} />
      </div>
      <ServerLocation transport={transport} stdioCommands={stdioCommands} url={url} setUrl={setUrl} command={command} setCommand={setCommand} args={args} setArgs={setArgs} />
      <SecretRows rows={secrets} setRows={setSecrets} transport={transport} />
      <div className="flex items-center gap-3">
        <button type="submit" className={buttonClass.primary} disabled={pending}>Register server</button>
        {pending && <span className="text-sm text-slate-600">Connecting and listing its tools…</span>}
      </div>
      <Feedback message={message} />
    </form>
  );
}

function TransportChoice({ transport, onChange }: { transport: "http" | "stdio"; onChange: (transport: "http" | "stdio") => void }) {
  return (
    <fieldset className="text-sm">
      <legend className="text-xs font-medium text-slate-700">Transport</legend>
      <div className="mt-1 flex gap-3">
        <label className="inline-flex items-center gap-1">
          <input type="radio" name="transport" checked={transport === "http"} onChange={() => onChange("http")} className="accent-indigo-700" />
          Streamable HTTP
        </label>
        <label className="inline-flex items-center gap-1">
          <input type="radio" name="transport" checked={transport === "stdio"} onChange={() => onChange("stdio")} className="accent-indigo-700" />
          Command on this host (stdio)
        </label>
      </div>
    </fieldset>
  );
}

/** Where the server is: its URL, or a command the operator allowed and its arguments. */
function ServerLocation({ transport, stdioCommands, url, setUrl, command, setCommand, args, setArgs }: {
  transport: "http" | "stdio";
  stdioCommands: string[];
  url: string;
  setUrl: (url: string) => void;
  command: string;
  setCommand: (command: string) => void;
  args: string;
  setArgs: (args: string) => void;
}) {
  if (transport === "http") {
    return (
      <label className="block text-xs font-medium text-slate-700">
        Server URL
        <input value={url} onChange={(e) => setUrl(e.target.value)} type="url" placeholder="https://mcp.example.com/mcp" spellCheck={false} className={`${inputClass} max-w-2xl font-mono`} />
      </label>
    );
  }
  if (stdioCommands.length === 0) {
    return (
      <p className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-950">
        Stdio servers are off on this console. The operator can allow specific commands by listing their absolute paths in <code>MCP_STDIO_COMMANDS</code>.
      </p>
    );
  }
  return (
    <div className="grid max-w-3xl gap-2 sm:grid-cols-2">
      <label className="block text-xs font-medium text-slate-700">
        Command
        <select value={command} onChange={(e) => setCommand(e.target.value)} className={`${inputClass} font-mono`}>
          {stdioCommands.map((c) => <option key={c} value={c}>{c}</option>)}
        </select>
      </label>
      <label className="block text-xs font-medium text-slate-700">
        Arguments (one per line)
        <textarea value={args} onChange={(e) => setArgs(e.target.value)} rows={3} spellCheck={false} className={`${inputClass} font-mono`} />
      </label>
    </div>
  );
}

function hintsText(tool: McpToolRow): string {
  const h = tool.hints;
  return [h.readOnlyHint ? "read-only" : "writes", !h.readOnlyHint && h.destructiveHint ? "destructive" : null, h.openWorldHint ? "open world" : "closed world", h.idempotentHint ? "idempotent" : null]
    .filter(Boolean)
    .join(", ");
}

/**
 * A tool's texts from its server (description, input schema, changes), rendered on the server with
 * their hidden characters revealed off the request thread (components/admin/mcp-tool-views.tsx).
 */
export type McpToolTexts = { description: React.ReactNode; schema: React.ReactNode; changes: React.ReactNode };

function ToolRow({ tool, texts, busy, onApprove }: { tool: McpToolRow; texts: McpToolTexts | undefined; busy: boolean; onApprove: (tool: McpToolRow) => void }) {
  return (
    <>
      <tr className="border-t border-slate-100 align-top">
        <th scope="row" className="px-3 py-2 text-left font-normal">
          <span className="block font-mono text-xs font-semibold">{tool.qualifiedName}</span>
          {tool.qualifiedName !== `${tool.qualifiedName.split("__")[0]}__${tool.name}` && <span className="block text-xs text-slate-600">upstream name: <code>{tool.name}</code></span>}
        </th>
        <td className="px-3 py-2"><StatusBadge status={tool.status} /></td>
        <td className="px-3 py-2 text-xs">
          {hintsText(tool)}
          <span className="block text-slate-500">risk classes: {tool.classes.join(", ")}</span>
        </td>
        <td className="max-w-md px-3 py-2 text-xs">
          <p className="whitespace-pre-wrap break-words">{texts?.description ?? <span className="text-slate-500">(no description)</span>}</p>
          {texts?.schema && (
            <details className="mt-1">
              <summary className="cursor-pointer text-slate-600">Input schema{tool.hasApproved ? " (approved)" : ""}</summary>
              {texts.schema}
            </details>
          )}
        </td>
        <td className="px-3 py-2 text-right">
          {(tool.status === "new" || tool.status === "held") && tool.pendingHash && (
            <ItemButton kind="approve" item={tool.qualifiedName} disabled={busy} onClick={() => onApprove(tool)}>{tool.status === "held" ? "Approve change" : "Approve"}</ItemButton>
          )}
        </td>
      </tr>
      {tool.status === "held" && (
        <tr className="bg-orange-50/50">
          <td colSpan={5} className="px-3 pb-3">
            <p className="py-1 text-sm font-medium text-orange-950">
              Held: its server now describes {tool.qualifiedName} differently from the approved definition. Calls are refused until an admin approves the change.
            </p>
            {texts?.changes}
          </td>
        </tr>
      )}
    </>
  );
}

function ReplaceSecretsForm({ server, replace }: { server: McpServerRow; replace: ReplaceSecrets }) {
  const router = useRouter();
  const [rows, setRows] = useState<SecretRow[]>(server.secretNames.map((name) => ({ name, value: "" })));
  const [message, setMessage] = useState<Message>(null);
  const [pending, startTransition] = useTransition();
  function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setMessage(null);
    const secrets = rows.filter((r) => r.name.trim()).map((r) => ({ name: r.name.trim(), value: r.value === "" && server.secretNames.includes(r.name.trim()) ? null : r.value }));
    startTransition(async () => {
      const result = await replace({ serverId: server.id, secrets });
      setMessage(result.ok ? { ok: true, text: `Secrets saved: ${result.data.secretNames.join(", ") || "none"}.` } : { ok: false, text: result.error.message });
      if (result.ok) router.refresh();
    });
  }
  return (
    <details className="mt-2">
      <summary className="cursor-pointer text-sm text-slate-700">Replace secrets</summary>
      <form onSubmit={submit} aria-label={`Secrets of ${server.name}`} className="mt-2 space-y-2">
        <SecretRows rows={rows} setRows={setRows} transport={server.transport} keepable={server.secretNames} />
        <button type="submit" className={buttonClass.secondary} disabled={pending}>Save secrets</button>
        <Feedback message={message} />
      </form>
    </details>
  );
}

/** One registered server: where it is, its secrets by name, and its tools with their approval state. */
export function McpServerCard({ server, toolTexts, actions }: { server: McpServerRow; toolTexts: Record<string, McpToolTexts>; actions: McpServerActions }) {
  const router = useRouter();
  const [message, setMessage] = useState<Message>(null);
  const [pending, startTransition] = useTransition();

  const run = <T,>(call: () => Promise<ActionResult<T>>, done: (data: T) => Message) => {
    setMessage(null);
    startTransition(async () => {
      const result = await call();
      setMessage(result.ok ? done(result.data) : { ok: false, text: result.error.message });
      router.refresh();
    });
  };
  const approve = (tool: McpToolRow) =>
    run(() => actions.approve({ toolId: tool.id, definitionHash: tool.pendingHash }), (d) => ({ ok: true, text: `Approved ${d.qualifiedName}: agents may propose it now.` }));
  const refresh = () => run(() => actions.refresh({ serverId: server.id }), (listing) => listingText(server.name, listing));
  const remove = () => {
    if (!window.confirm(`Remove the MCP server “${server.name}” and its ${server.tools.length} tools? Actions waiting on them can no longer run.`)) return;
    run(() => actions.remove({ serverId: server.id }), (d) => ({ ok: true, text: `Removed ${d.name}.` }));
  };
  const waiting = server.tools.filter((t) => t.status === "new" || t.status === "held").length;

  return (
    <section aria-labelledby={`mcp-${server.id}`} className="rounded-lg border border-slate-200 bg-white">
      <div className="flex flex-wrap items-start justify-between gap-2 border-b border-slate-200 px-4 py-2">
        <div>
          <h2 id={`mcp-${server.id}`} className="font-mono font-semibold">{server.name}</h2>
          <p className="text-sm text-slate-600">
            {server.transport === "http" ? <>Streamable HTTP · <code className="break-all">{server.url}</code></> : <>stdio · <code className="break-all">{[server.command, ...server.args].join(" ")}</code></>}
          </p>
          <p className="text-xs text-slate-600">
            Secrets: {server.secretNames.length === 0 ? "none" : server.secretNames.map((n) => `${n} (set)`).join(", ")} · tools listed {when(server.listedAt)}
            {waiting > 0 && <> · <span className="font-medium text-orange-900">{waiting} waiting for approval</span></>}
          </p>
        </div>
        <div className="flex gap-2">
          <ItemButton item={`of ${server.name}`} disabled={pending} onClick={refresh}>Refresh tools</ItemButton>
          <ItemButton kind="reject" item={server.name} disabled={pending} onClick={remove}>Remove</ItemButton>
        </div>
      </div>
      <div className="space-y-2 p-3">
        {server.listError && <p role="alert" className="rounded-md bg-red-50 px-3 py-1.5 text-sm text-red-900">Last listing failed: {server.listError}</p>}
        <Feedback message={message} />
        {server.tools.length === 0 ? (
          <p className="text-sm text-slate-600">No tools listed yet.</p>
        ) : (
          <DataTable caption={`Tools of ${server.name}`} columns={["Tool", "Status", "Hints (from the server)", "Description"]} actionsColumn>
            {server.tools.map((tool) => <ToolRow key={tool.id} tool={tool} texts={toolTexts[tool.id]} busy={pending} onApprove={approve} />)}
          </DataTable>
        )}
        <ReplaceSecretsForm server={server} replace={actions.replaceSecrets} />
      </div>
    </section>
  );
}
