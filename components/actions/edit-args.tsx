"use client";

import { useRouter } from "next/navigation";
import { useId, useMemo, useState, useTransition } from "react";
import { editFromConsole } from "@/app/(console)/actions/review-actions";
import { ArgsFormFields } from "@/components/actions/args-form-fields";
import { buttonClass } from "@/components/ui/button";
import type { JsonObject } from "@/lib/canonical/json-value";
import { argsFormFields, moneyDraftProblem, parseArgsText, withArg, type ArgsFormField } from "@/lib/review/args-form";
import { decisionErrorMessage } from "@/lib/review/decision-messages";

/**
 * Edit the arguments: a form generated from the tool's argument schema (money in major units) over
 * the JSON, which stays the source of truth and is what is submitted. Saving creates a new revision
 * with its own approval (votes on the old one become void); the server parses strictly and
 * validates against the tool's schema.
 */
export function EditArgs({ actionId, payloadHash, args, isCode, schema = null }: {
  actionId: string; payloadHash: string; args: unknown; isCode: boolean;
  /** The tool's argument JSON Schema; without one (code) only the JSON is offered. */
  schema?: JsonObject | null;
}) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const [text, setText] = useState("");
  /** Money amounts as typed (the JSON holds the last valid value). */
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const fields = useMemo(() => argsFormFields(schema), [schema]);
  const parsed = parseArgsText(text);

  if (!open) {
    return (
      <div className="space-y-2">
        <button
          type="button" data-shortcut="edit" className={buttonClass.secondary}
          onClick={() => { setOpen(true); setDone(null); setText(JSON.stringify(args, null, 2)); setDrafts({}); }}
        >Edit</button>
        {done && <p role="status" className="rounded-md bg-emerald-50 px-3 py-2 text-[0.85rem] text-emerald-900">{done}</p>}
      </div>
    );
  }
  return (
    <form
      className="space-y-3"
      aria-label="Edit arguments"
      data-editing=""
      onSubmit={(event) => {
        event.preventDefault();
        const argsJson = String(new FormData(event.currentTarget).get("args") ?? "");
        // An amount typed wrong never reached the JSON: say so rather than submit the old amount.
        const badAmount = moneyDraftsProblem(fields, drafts);
        if (badAmount) {
          setError(badAmount);
          return;
        }
        setError(null);
        startTransition(async () => {
          const result = await editFromConsole({ actionId, payloadHash, argsJson });
          if (!result.ok) {
            setError(decisionErrorMessage(result.error));
            return;
          }
          setOpen(false);
          setDone(`Revision ${result.data.revision} created (${result.data.status}). It needs its own approval, by a reviewer other than you.`);
          router.refresh();
        });
      }}
    >
      {fields.length > 0 && (
        <fieldset disabled={!parsed.ok} className="space-y-2">
          <legend className="font-medium">Arguments</legend>
          {!parsed.ok && <p role="status" className="rounded-md bg-amber-50 px-3 py-2 text-[0.85rem] text-amber-900">{parsed.message}</p>}
          <ArgsFormFields
            fields={fields}
            args={parsed.ok ? parsed.args : {}}
            drafts={drafts}
            onSet={(name, value) => { if (parsed.ok) setText(withArg(parsed.args, name, value)); }}
            onDraft={(name, typed) => setDrafts((d) => ({ ...d, [name]: typed }))}
          />
        </fieldset>
      )}
      <JsonArgsField text={text} isCode={isCode} withForm={fields.length > 0} onChange={(typed) => { setText(typed); setDrafts({}); }} />
      <p className="text-xs text-slate-600">Saving creates a new revision. Approvals of the current revision become void.</p>
      {error && <p role="alert" className="whitespace-pre-wrap rounded-md bg-red-50 px-3 py-2 text-[0.85rem] text-red-800">{error}</p>}
      <div className="flex gap-2">
        <button type="submit" className={buttonClass.primary} disabled={pending} aria-busy={pending}>{pending ? "Saving…" : "Save as new revision"}</button>
        <button type="button" className={buttonClass.secondary} onClick={() => { setOpen(false); setError(null); }}>Cancel</button>
      </div>
    </form>
  );
}

/** An amount typed wrong never reached the JSON: the first such field and its problem, or null. */
function moneyDraftsProblem(fields: ArgsFormField[], drafts: Record<string, string>): string | null {
  const badAmount = fields.filter((f) => f.kind === "money").map((f) => [f.label, moneyDraftProblem(drafts[f.name], f.required)] as const).find(([, problem]) => problem);
  return badAmount ? `${badAmount[0]}: ${badAmount[1]}` : null;
}

/** The arguments as JSON: the source of truth, and what is submitted (`args`). */
function JsonArgsField({ text, isCode, withForm, onChange }: { text: string; isCode: boolean; withForm: boolean; onChange: (text: string) => void }) {
  const fieldId = useId();
  return (
    <details open className="space-y-1">
      <summary className="cursor-pointer text-sm font-medium text-slate-700">{withForm ? "Advanced: JSON" : "JSON"}</summary>
      <label htmlFor={fieldId} className="mt-1 block font-medium">Arguments (JSON{isCode ? ": code and language" : ""})</label>
      <textarea
        id={fieldId}
        name="args"
        rows={Math.min(24, text.split("\n").length + 2)}
        value={text}
        onChange={(e) => onChange(e.target.value)}
        spellCheck={false}
        autoFocus={!withForm}
        className="w-full rounded-md border border-slate-300 px-2 py-1.5 font-mono text-[0.8rem] focus:border-indigo-600"
      />
    </details>
  );
}
