"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { buttonClass } from "@/components/ui/button";
import type { PolicyValidationError } from "@/lib/policy/compile-policy";
import type { ActionResult } from "@/lib/server/boundary";
import { PolicyRulesEditor } from "@/components/admin/policy-rules-editor";
import { PolicyTryOut } from "@/components/admin/policy-try-out";

type Validate = (raw: unknown) => Promise<ActionResult<{ ok: boolean; errors: PolicyValidationError[]; notes?: PolicyValidationError[] }>>;
type Save = (raw: unknown) => Promise<ActionResult<{ version: number }>>;

function errorsOf(details: unknown): PolicyValidationError[] {
  const errors = (details as { errors?: unknown } | undefined)?.errors;
  return Array.isArray(errors) ? (errors as PolicyValidationError[]) : [];
}

/** What validating a draft came to, in words. */
function validationMessage(data: { ok: boolean; errors: PolicyValidationError[]; notes?: PolicyValidationError[] }): { ok: boolean; text: string } {
  if (!data.ok) return { ok: false, text: `${data.errors.length} problem${data.errors.length === 1 ? "" : "s"} to fix before saving.` };
  const unchecked = data.notes?.length ?? 0;
  return {
    ok: true,
    text: unchecked === 0
      ? "The policy is valid: every tool exists and every condition type-checks against its tool's arguments."
      : `The policy is valid, but ${unchecked} part${unchecked === 1 ? " was" : "s were"} not fully checked (see below).`,
  };
}

/** The policy as JSON beside a form of its rules, validated and saved as a new version, and tried before saving. */
export function PolicyEditor({ baseVersion, initialText, validate, save, tools, dryRun, test }: {
  baseVersion: number;
  initialText: string;
  validate: Validate;
  save: Save;
  /** The tenant's tool names, for the rules editor and the sample test. */
  tools: string[];
  dryRun: React.ComponentProps<typeof PolicyTryOut>["dryRun"];
  test: React.ComponentProps<typeof PolicyTryOut>["test"];
}) {
  const router = useRouter();
  const [text, setText] = useState(initialText);
  const [comment, setComment] = useState("");
  const [errors, setErrors] = useState<PolicyValidationError[]>([]);
  const [notes, setNotes] = useState<PolicyValidationError[]>([]);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [pending, startTransition] = useTransition();
  const [focus, setFocus] = useState<{ tool: string; ruleId: string; nonce: number } | null>(null);

  async function validateDraft() {
    const result = await validate({ text });
    if (!result.ok) {
      setErrors(errorsOf(result.error.details));
      setMessage({ ok: false, text: result.error.message });
      return;
    }
    setNotes(result.data.notes ?? []);
    if (!result.data.ok) setErrors(result.data.errors);
    setMessage(validationMessage(result.data));
  }

  async function saveDraft() {
    const result = await save({ text, baseVersion, comment: comment || undefined });
    if (!result.ok) {
      setErrors(errorsOf(result.error.details));
      setMessage({ ok: false, text: result.error.message });
      return;
    }
    setComment("");
    setMessage({ ok: true, text: `Saved as version ${result.data.version}; it is in force for new proposals now.` });
    router.refresh();
  }

  function run(kind: "validate" | "save") {
    setMessage(null);
    setErrors([]);
    setNotes([]);
    startTransition(kind === "validate" ? validateDraft : saveDraft);
  }

  return (
    <div className="space-y-2">
      <div className="grid grid-cols-1 gap-4 2xl:grid-cols-2">
      <PolicyDocumentField baseVersion={baseVersion} text={text} onChange={setText} invalid={errors.length > 0} />
      <PolicyRulesEditor text={text} onChange={setText} tools={tools} errors={errors} onTestRule={(tool, ruleId) => setFocus({ tool, ruleId, nonce: Date.now() })} />
      </div>
      <div className="flex flex-wrap items-end gap-2">
        <label className="block min-w-72 flex-1 text-xs font-medium text-slate-700">
          Comment for the history (optional)
          <input value={comment} onChange={(e) => setComment(e.target.value)} maxLength={500} className="mt-0.5 w-full rounded-md border border-slate-300 px-2 py-1 text-sm" />
        </label>
        <button type="button" className={buttonClass.secondary} disabled={pending} onClick={() => run("validate")}>Validate</button>
        <button type="button" className={buttonClass.primary} disabled={pending} onClick={() => run("save")}>Save policy</button>
      </div>
      {message && <PolicyCheckResult message={message} errors={errors} notes={notes} />}
      <PolicyTryOut text={text} tools={tools} focus={focus} dryRun={dryRun} test={test} />
    </div>
  );
}

function PolicyDocumentField({ baseVersion, text, onChange, invalid }: { baseVersion: number; text: string; onChange: (text: string) => void; invalid: boolean }) {
  return (
    <div className="space-y-2">
      <label htmlFor="policy-json" className="block text-sm font-medium">
        Policy document (JSON) — editing version {baseVersion === 0 ? "0 (built-in default)" : baseVersion}
      </label>
      <textarea
        id="policy-json"
        value={text}
        onChange={(e) => onChange(e.target.value)}
        spellCheck={false}
        rows={22}
        aria-invalid={invalid ? true : undefined}
        aria-describedby="policy-help"
        className="w-full rounded-md border border-slate-300 bg-slate-50 p-2 font-mono text-xs leading-5 focus:border-indigo-600 focus:outline-none focus:ring-2 focus:ring-indigo-600/30"
      />
      <p id="policy-help" className="text-xs text-slate-600">
        Each tool has rules tried in order; the first whose CEL condition <code>when</code> matches decides: <code>allow</code>, <code>require_approval</code> or <code>deny</code>.
        Conditions see <code>args</code>, <code>tool</code> and <code>ctx</code>. Saving creates a new version; old versions are kept.
      </p>
    </div>
  );
}

function PolicyCheckResult({ message, errors, notes }: { message: { ok: boolean; text: string }; errors: PolicyValidationError[]; notes: PolicyValidationError[] }) {
  return (
    <div role={message.ok ? "status" : "alert"} className={`rounded-md px-3 py-2 text-sm ${message.ok ? "bg-emerald-50 text-emerald-900" : "bg-red-50 text-red-900"}`}>
      <p className="font-medium">{message.text}</p>
      {errors.length > 0 && (
        <ul className="mt-1 space-y-0.5" aria-label="Policy problems">
          {errors.map((e, i) => (
            <li key={i}><code className="rounded bg-white/70 px-1 font-mono text-xs">{e.path}</code> {e.message}</li>
          ))}
        </ul>
      )}
      {notes.length > 0 && (
        <ul className="mt-1 space-y-0.5 text-amber-950" aria-label="Not checked">
          {notes.map((n, i) => (
            <li key={i}><code className="rounded bg-white/70 px-1 font-mono text-xs">{n.path}</code> {n.message}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
