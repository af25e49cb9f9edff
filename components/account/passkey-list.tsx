"use client";

import { startRegistration } from "@simplewebauthn/browser";
import { useRouter } from "next/navigation";
import { useId, useState, useTransition } from "react";
import type { PasskeySummary } from "@/lib/passkeys/list-passkeys";
import type { ActionResult } from "@/lib/server/boundary";
import { buttonClass } from "@/components/ui/button";
import { PasskeyElsewhereNote, usePasskeyElsewhere } from "@/components/ui/passkey-elsewhere";
import type { PublicKeyCredentialCreationOptionsJSON } from "@simplewebauthn/browser";
import { ItemButton } from "@/components/ui/item-button";

type Actions = {
  begin: (raw: unknown) => Promise<ActionResult<PublicKeyCredentialCreationOptionsJSON>>;
  complete: (raw: unknown) => Promise<ActionResult<{ id: string; name: string }>>;
  remove: (raw: unknown) => Promise<ActionResult<{ removed: boolean; reopened: number }>>;
};

const when = (date: Date) => `${date.toISOString().replace("T", " ").slice(0, 16)} UTC`;

/**
 * The member's passkeys: add one (named), see them, remove one. Keys never reach the page. Opened
 * where passkeys cannot work (`origins` are where they do), it says why instead of offering to add one.
 */
export function PasskeyList({ passkeys, origins, actions }: { passkeys: PasskeySummary[]; origins: string[]; actions: Actions }) {
  const router = useRouter();
  const elsewhere = usePasskeyElsewhere(origins);
  const nameId = useId();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [pending, startTransition] = useTransition();

  const add = (event: React.FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const name = String(new FormData(form).get("name") ?? "").trim();
    if (!name) {
      setMessage({ ok: false, text: "Name the passkey, like “Work laptop”, so you can tell your passkeys apart." });
      return;
    }
    setMessage(null);
    startTransition(async () => {
      const options = await actions.begin({});
      if (!options.ok) return setMessage({ ok: false, text: options.error.message });
      let response;
      try {
        response = await startRegistration({ optionsJSON: options.data });
      } catch (error) {
        return setMessage({ ok: false, text: `Your browser did not create a passkey (${error instanceof Error ? error.message : "cancelled"}). Try again.` });
      }
      const added = await actions.complete({ name, response });
      if (!added.ok) return setMessage({ ok: false, text: added.error.message });
      form.reset();
      setMessage({ ok: true, text: `Passkey “${added.data.name}” added.` });
      router.refresh();
    });
  };

  const remove = (passkey: PasskeySummary) => {
    startTransition(async () => {
      const result = await actions.remove({ passkeyId: passkey.id });
      setMessage(result.ok ? { ok: true, text: removedText(passkey.name, result.data.reopened) } : { ok: false, text: result.error.message });
      router.refresh();
    });
  };

  return (
    <div className="space-y-3">
      {passkeys.length === 0 ? (
        <p className="text-sm text-slate-700">You have no passkey yet. Approvals whose policy requires a signature need one.</p>
      ) : (
        <ul aria-label="Your passkeys" className="divide-y divide-slate-100 text-sm">
          {passkeys.map((p) => (
            <li key={p.id} className="flex items-center justify-between gap-3 py-2">
              <span>
                <span className="block font-medium">{p.name}</span>
                <span className="text-xs text-slate-600">
                  Added {when(p.createdAt)} · {p.lastUsedAt ? `last signed ${when(p.lastUsedAt)}` : "not used yet"}
                  {p.deviceType === "multiDevice" ? (p.backedUp ? " · synced" : " · can sync") : " · this device only"}
                </span>
              </span>
              <ItemButton item={`passkey ${p.name}`} disabled={pending} onClick={() => remove(p)}>Remove</ItemButton>
            </li>
          ))}
        </ul>
      )}
      {passkeys.length > 0 && (
        <p className="text-xs text-slate-600">Removing a passkey withdraws the approvals it signed for actions that have not run yet: they go back to the review queue, where you can approve them again with another passkey.</p>
      )}
      {elsewhere ? <PasskeyElsewhereNote elsewhere={elsewhere} /> : <form onSubmit={add} aria-label="Add a passkey" className="flex flex-wrap items-end gap-2">
        <span>
          <label htmlFor={nameId} className="block text-sm font-medium">Passkey name</label>
          <input id={nameId} name="name" maxLength={60} className="rounded-md border border-slate-300 px-2 py-1.5" placeholder="Work laptop" />
        </span>
        <button type="submit" className={buttonClass.primary} disabled={pending}>{pending ? "Waiting for your passkey…" : "Add passkey"}</button>
      </form>}
      {message && <p role={message.ok ? "status" : "alert"} className={`text-sm ${message.ok ? "text-emerald-800" : "text-red-800"}`}>{message.text}</p>}
    </div>
  );
}

function removedText(name: string, reopened: number): string {
  if (reopened === 0) return `Passkey “${name}” removed.`;
  const actions = reopened === 1 ? "1 action you approved with it had" : `${reopened} actions you approved with it had`;
  return `Passkey “${name}” removed. ${actions} not run yet; your approval no longer counts, so they are back in the review queue.`;
}
