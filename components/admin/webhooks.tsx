"use client";

import { useState } from "react";
import { buttonClass } from "@/components/ui/button";
import { useServerAction } from "@/components/ui/use-server-action";
import type { ActionResult } from "@/lib/server/boundary";
import { ResendButton, type Resend } from "@/components/admin/resend-button";
import { DataTable } from "@/components/ui/data-table";
import { ItemButton } from "@/components/ui/item-button";
import { CheckboxSet } from "@/components/ui/checkbox-set";

type Register = (raw: unknown) => Promise<ActionResult<{ id: string; secret: string }>>;
type Rotate = (raw: unknown) => Promise<ActionResult<{ secret: string; previousValidUntil: string | null }>>;
type ById = (raw: unknown) => Promise<ActionResult<{ id: string }>>;

const when = (iso: string | null) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : "—");

/** The signing secret, shown once after it is made. */
function SecretOnce({ label, secret, note }: { label: string; secret: string; note?: string }) {
  return (
    <div role="status" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-amber-950">
      <p className="font-medium">Copy the signing secret for {label} now — it is shown only once.</p>
      <label className="mt-1 block text-xs font-medium">
        Signing secret
        <input readOnly value={secret} onFocus={(e) => e.target.select()} className="mt-0.5 block w-full rounded border border-amber-300 bg-white px-2 py-1 font-mono text-sm" />
      </label>
      <p className="mt-1 text-xs">Verify each delivery&apos;s <code>webhook-signature</code> with it (any Standard Webhooks library does).{note ? ` ${note}` : ""}</p>
    </div>
  );
}

export function RegisterWebhook({ events, register }: { events: Array<{ type: string; label: string }>; register: Register }) {
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [chosen, setChosen] = useState<string[]>(["action.pending"]);
  const [allowPrivate, setAllowPrivate] = useState(false);
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null);
  const { message, pending, run } = useServerAction({ refresh: true });

  function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setCreated(null);
    run(() => register({ url, description, events: chosen, allowPrivate }), (data) => {
      setCreated({ url, secret: data.secret });
      setUrl("");
      setDescription("");
      setAllowPrivate(false);
    });
  }

  return (
    <div className="space-y-3">
      <form onSubmit={submit} aria-label="Add a webhook endpoint" className="space-y-2">
        <div className="flex flex-wrap items-end gap-3">
          <label className="block max-w-full text-xs font-medium text-slate-700">
            Endpoint URL
            <input value={url} onChange={(e) => setUrl(e.target.value)} required maxLength={2000} placeholder="https://hooks.example.com/countersign" className="mt-0.5 block w-96 max-w-full rounded-md border border-slate-300 px-2 py-1 text-sm" />
          </label>
          <label className="block text-xs font-medium text-slate-700">
            Description
            <input value={description} onChange={(e) => setDescription(e.target.value)} maxLength={200} className="mt-0.5 block w-64 rounded-md border border-slate-300 px-2 py-1 text-sm" />
          </label>
        </div>
        <CheckboxSet legend="Events" chosen={chosen} setChosen={setChosen} listClassName="gap-x-4" labelClassName="min-h-6"
          options={events.map(({ type, label }) => ({ value: type, label: <><code className="text-xs">{type}</code> <span className="text-xs text-slate-600">({label})</span></> }))} />
        <label className="inline-flex min-h-6 items-center gap-2 text-sm">
          <input type="checkbox" checked={allowPrivate} onChange={(e) => setAllowPrivate(e.target.checked)} className="h-4 w-4 accent-indigo-700" />
          Allow this host even if it resolves to a loopback, private or link-local address (the operator must also list it in WEBHOOK_PRIVATE_HOSTS)
        </label>
        <div>
          <button type="submit" className={buttonClass.primary} disabled={pending}>Add endpoint</button>
        </div>
        {message && <p role="alert" className="rounded-md bg-red-50 px-3 py-1.5 text-sm text-red-800">{message.text}</p>}
      </form>
      {created && <SecretOnce label={created.url} secret={created.secret} />}
    </div>
  );
}

export type WebhookEndpointRow = {
  id: string;
  url: string;
  description: string;
  events: string[];
  allowPrivate: boolean;
  previousSecretUntil: string | null;
  createdAt: string;
};

export function WebhookEndpoints({ endpoints, rotate, remove }: { endpoints: WebhookEndpointRow[]; rotate: Rotate; remove: ById }) {
  const [rotated, setRotated] = useState<{ url: string; secret: string; until: string | null } | null>(null);
  const { message, pending, run } = useServerAction({ refresh: true });

  function rotateSecret(endpoint: WebhookEndpointRow) {
    run(() => rotate({ id: endpoint.id }), (data) => setRotated({ url: endpoint.url, secret: data.secret, until: data.previousValidUntil }));
  }

  function removeEndpoint(endpoint: WebhookEndpointRow) {
    if (!window.confirm(`Remove the endpoint ${endpoint.url}? Nothing more is sent to it, pending deliveries included.`)) return;
    run(() => remove({ id: endpoint.id }));
  }

  if (endpoints.length === 0) return <p className="text-sm text-slate-600">No endpoints yet.</p>;
  return (
    <div className="space-y-3">
      {message && <p role="alert" className="rounded-md bg-red-50 px-3 py-1.5 text-sm text-red-800">{message.text}</p>}
      {rotated && <SecretOnce label={rotated.url} secret={rotated.secret} note={rotated.until
        ? `The previous secret also signs until ${when(rotated.until)}.`
        : "Only this secret signs from now on: the previous one is not kept beside it."} />}
      <ul className="divide-y divide-slate-100">
        {endpoints.map((endpoint) => (
          <li key={endpoint.id} className="flex flex-wrap items-start justify-between gap-3 py-2">
            <div className="min-w-0 text-sm">
              <p className="break-all font-mono">{endpoint.url}</p>
              {endpoint.description && <p className="text-slate-600">{endpoint.description}</p>}
              <p className="text-xs text-slate-600">
                {endpoint.events.join(", ")} · added {when(endpoint.createdAt)}
                {endpoint.allowPrivate && " · private host allowed"}
                {endpoint.previousSecretUntil && ` · previous secret signs until ${when(endpoint.previousSecretUntil)}`}
              </p>
            </div>
            <span className="inline-flex gap-2">
              <ItemButton item={`of ${endpoint.url}`} disabled={pending} onClick={() => rotateSecret(endpoint)}>Rotate secret</ItemButton>
              <ItemButton kind="reject" item={endpoint.url} disabled={pending} onClick={() => removeEndpoint(endpoint)}>Remove</ItemButton>
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

export type WebhookDeliveryRow = {
  id: string;
  url: string;
  messageId: string;
  eventType: string;
  status: string;
  attempts: number;
  nextAttemptAt: string;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  createdAt: string;
  resendable: boolean;
};

const STATUS_CLASS: Record<string, string> = {
  delivered: "bg-emerald-50 text-emerald-800 ring-emerald-600/30",
  pending: "bg-amber-50 text-amber-900 ring-amber-600/30",
  failed: "bg-red-50 text-red-800 ring-red-600/30",
};

export function WebhookDeliveries({ deliveries, redeliver }: { deliveries: WebhookDeliveryRow[]; redeliver: Resend }) {
  if (deliveries.length === 0) return <p className="text-sm text-slate-600">Nothing delivered yet.</p>;
  return (
    <div className="space-y-2 overflow-x-auto">
      <DataTable caption="Webhook deliveries" columns={["Event", "Endpoint", "Status", "Attempts", "Last answer", "Created"]} actionsColumn>
        {deliveries.map((delivery) => (
          <tr key={delivery.id} className="border-t border-slate-100 align-top">
            <th scope="row" className="px-3 py-2 text-left font-mono text-xs font-medium">
              {delivery.eventType}
              <span className="block font-normal text-slate-600">{delivery.messageId}</span>
            </th>
            <td className="max-w-xs break-all px-3 py-2 font-mono text-xs">{delivery.url}</td>
            <td className="px-3 py-2">
              <span className={`rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${STATUS_CLASS[delivery.status] ?? ""}`}>{delivery.status}</span>
              {delivery.status === "pending" && delivery.attempts > 0 && <span className="block text-xs text-slate-600">next {when(delivery.nextAttemptAt)}</span>}
            </td>
            <td className="px-3 py-2 text-xs">{delivery.attempts}</td>
            <td className="max-w-xs px-3 py-2 text-xs">{delivery.lastError ?? (delivery.lastStatus ? `HTTP ${delivery.lastStatus}` : "—")}</td>
            <td className="whitespace-nowrap px-3 py-2 text-xs">{when(delivery.createdAt)}</td>
            <td className="px-3 py-2 text-right">
              {delivery.resendable && <ResendButton id={delivery.id} label={delivery.messageId} resend={redeliver} />}
            </td>
          </tr>
        ))}
      </DataTable>
    </div>
  );
}
