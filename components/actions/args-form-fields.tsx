"use client";

import { useId } from "react";
import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";
import { majorTextToMinor, minorToMajorText, moneyDraftProblem, type ArgsFormField } from "@/lib/review/args-form";

const inputClass = "w-full rounded-md border border-slate-300 px-2 py-1.5 text-[0.9rem] focus:border-indigo-600 disabled:bg-slate-50";

/**
 * One labelled input per argument the schema describes. The inputs show and rewrite `args` (the
 * JSON view is the source of truth); a money amount being typed is kept as typed in `drafts`.
 */
export function ArgsFormFields({ fields, args, drafts, onSet, onDraft }: {
  fields: ArgsFormField[];
  args: JsonObject;
  drafts: Record<string, string>;
  /** Sets one argument (undefined removes it). */
  onSet: (name: string, value: JsonValue | undefined) => void;
  /** Keeps what is typed in a money field, valid or not. */
  onDraft: (name: string, text: string) => void;
}) {
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      {fields.map((field, index) => (
        <FieldInput key={field.name} autoFocus={index === 0} field={field} value={args[field.name]} draft={drafts[field.name]} onSet={onSet} onDraft={onDraft} />
      ))}
    </div>
  );
}

function FieldInput({ field, value, draft, onSet, onDraft, autoFocus }: {
  field: ArgsFormField;
  /** The first field takes the focus when the editor opens. */
  autoFocus: boolean;
  value: JsonValue | undefined;
  draft: string | undefined;
  onSet: (name: string, value: JsonValue | undefined) => void;
  onDraft: (name: string, text: string) => void;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const { name, kind, required } = field;
  const asText = value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value);
  const setText = (text: string) => onSet(name, text === "" && !required ? undefined : text);
  const wide = kind === "textarea" || kind === "json" ? "sm:col-span-2" : "";
  const moneyError = kind === "money" ? moneyDraftProblem(draft, required) : null;

  let hint = field.description ?? "";
  let input: React.ReactNode;
  switch (kind) {
    case "textarea":
      input = <textarea id={id} rows={6} value={asText} onChange={(e) => setText(e.target.value)} aria-describedby={hintId} autoFocus={autoFocus} className={inputClass} />;
      break;
    case "money":
      hint = `In major units, like 450.00; saved as ${name} in minor units${typeof value === "number" ? ` (now ${value})` : ""}.`;
      input = <MoneyInput id={id} hintId={hintId} field={field} value={value} asText={asText} draft={draft} invalid={moneyError !== null} autoFocus={autoFocus} onSet={onSet} onDraft={onDraft} />;
      break;
    case "integer":
    case "number":
      input = (
        <input
          id={id} type="number" step={kind === "integer" ? 1 : "any"} value={typeof value === "number" ? value : asText} aria-describedby={hintId} autoFocus={autoFocus}
          onChange={(e) => onSet(name, e.target.value === "" ? undefined : Number(e.target.value))}
          className={`${inputClass} font-mono tabular-nums`}
        />
      );
      break;
    case "boolean":
      return (
        <div className="flex items-start gap-2 sm:col-span-2">
          <input id={id} type="checkbox" checked={value === true} onChange={(e) => onSet(name, e.target.checked)} aria-describedby={hintId} autoFocus={autoFocus} className="mt-1" />
          <div>
            <label htmlFor={id} className="font-medium">{field.label}</label>
            <FieldHint id={hintId} name={name} text={hint} />
          </div>
        </div>
      );
    case "enum":
      input = <EnumSelect id={id} hintId={hintId} field={field} value={value} autoFocus={autoFocus} onSet={onSet} />;
      break;
    case "json":
      return (
        <div className={wide}>
          <p className="font-medium">{field.label}</p>
          <p className="text-xs text-slate-600"><code>{name}</code> is nested: edit it in the JSON below.</p>
        </div>
      );
    default:
      input = <input id={id} type="text" autoComplete="off" value={asText} onChange={(e) => setText(e.target.value)} aria-describedby={hintId} autoFocus={autoFocus} className={inputClass} />;
  }
  return (
    <div className={wide}>
      <label htmlFor={id} className="block font-medium">{field.label}{required ? "" : <span className="font-normal text-slate-600"> (optional)</span>}</label>
      {input}
      <FieldHint id={hintId} name={name} text={moneyError ?? hint} error={moneyError !== null} />
    </div>
  );
}

/** A money amount typed in major units; the arguments get minor units once it parses, the draft keeps the text. */
function MoneyInput({ id, hintId, field, value, asText, draft, invalid, autoFocus, onSet, onDraft }: {
  id: string;
  hintId: string;
  field: ArgsFormField;
  value: JsonValue | undefined;
  asText: string;
  draft: string | undefined;
  invalid: boolean;
  autoFocus: boolean;
  onSet: (name: string, value: JsonValue | undefined) => void;
  onDraft: (name: string, text: string) => void;
}) {
  const { name, required } = field;
  const shown = draft ?? (typeof value === "number" && Number.isInteger(value) ? minorToMajorText(value) : asText);
  return (
    <input
      id={id} type="text" inputMode="decimal" autoComplete="off" value={shown}
      aria-invalid={invalid ? true : undefined} aria-describedby={hintId} autoFocus={autoFocus}
      onChange={(e) => {
        const text = e.target.value;
        onDraft(name, text);
        const parsed = majorTextToMinor(text);
        if (parsed.ok) onSet(name, parsed.minor);
        else if (text.trim() === "" && !required) onSet(name, undefined);
      }}
      className={`${inputClass} font-mono tabular-nums`}
    />
  );
}

/** The schema's choices; a value outside them (as the agent sent it) is listed first rather than lost. */
function EnumSelect({ id, hintId, field, value, autoFocus, onSet }: {
  id: string;
  hintId: string;
  field: ArgsFormField;
  value: JsonValue | undefined;
  autoFocus: boolean;
  onSet: (name: string, value: JsonValue | undefined) => void;
}) {
  const { name, required } = field;
  const options = typeof value === "string" && !field.options.includes(value) ? [value, ...field.options] : field.options;
  return (
    <select id={id} value={typeof value === "string" ? value : ""} onChange={(e) => onSet(name, e.target.value === "" ? undefined : e.target.value)} aria-describedby={hintId} autoFocus={autoFocus} className={inputClass}>
      {(!required || typeof value !== "string") && <option value="">{required ? "(choose one)" : "(not set)"}</option>}
      {options.map((option) => <option key={option} value={option}>{option}</option>)}
    </select>
  );
}

function FieldHint({ id, name, text, error = false }: { id: string; name: string; text: string; error?: boolean }) {
  return (
    <p id={id} className={`mt-0.5 text-xs ${error ? "font-medium text-red-800" : "text-slate-600"}`}>
      <code className="text-slate-500">{name}</code>{text ? ` · ${text}` : ""}
    </p>
  );
}
