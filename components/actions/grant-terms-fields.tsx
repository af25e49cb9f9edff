"use client";

import type { GrantTerms } from "@/lib/grants/grant-terms";
import { grantAmount, grantArgumentName } from "@/lib/grants/grant-amount";
import type { GrantDraft } from "@/lib/grants/grant-draft";
import { majorTextToMinor, minorToMajorText } from "@/lib/review/args-form";
import { isMinorUnitsField } from "@/lib/tools/money";

const field = "w-full rounded-md border border-slate-300 px-2 py-1 focus:border-indigo-600";

/**
 * "This and calls like it": the standing grant's terms, pre-filled from the action, sent with an
 * approval when ticked. The server checks them against the action and the vote statement again.
 */
export function GrantTermsFields({ draft }: { draft: GrantDraft }) {
  return (
    <details className="rounded-md border border-slate-200 px-3 py-2 text-[0.85rem]" data-testid="grant-terms">
      <summary className="cursor-pointer font-medium">Also approve calls like this one…</summary>
      <div className="mt-2 space-y-2">
        <label className="flex items-start gap-2">
          <input type="checkbox" name="grant" value="on" className="mt-1" />
          <span>Approve this and calls like it from the same API key (or task) to the same tool, without review, within these limits.</span>
        </label>
        <label className="block">In words
          <input name="grantDescription" defaultValue={draft.description} maxLength={500} className={field} />
        </label>
        <label className="block">Constraint on the arguments (CEL)
          <textarea name="grantConstraint" defaultValue={draft.constraint} rows={2} maxLength={2000} className={`${field} font-mono text-xs`} />
        </label>
        <div className="flex flex-wrap gap-3">
          <label className="block">At most calls
            <input type="number" name="grantMaxCalls" min={1} defaultValue={draft.maxCalls ?? ""} className={`${field} w-24`} />
          </label>
          {draft.totalArgument && <TotalField argument={draft.totalArgument} maxTotal={draft.maxTotal} />}
          <label className="block">For minutes (at most {Math.floor(draft.maxTtlSeconds / 60)})
            <input type="number" name="grantMinutes" min={1} max={Math.floor(draft.maxTtlSeconds / 60)} defaultValue={Math.floor(draft.ttlSeconds / 60)} className={`${field} w-24`} />
          </label>
        </div>
      </div>
    </details>
  );
}

/** The total's limit: money in minor units is typed in major units ("300.00"), as in the argument editor. */
function TotalField({ argument, maxTotal }: { argument: string; maxTotal: number | null }) {
  const money = isMinorUnitsField(argument);
  return (
    <label className="block">Total of {grantArgumentName(argument)} at most
      {money
        ? <input type="text" inputMode="decimal" name="grantMaxTotal" defaultValue={maxTotal === null ? "" : minorToMajorText(maxTotal)} className={`${field} w-32`} />
        : <input type="number" name="grantMaxTotal" min={1} defaultValue={maxTotal ?? ""} className={`${field} w-32`} />}
      <input type="hidden" name="grantTotalArgument" value={argument} />
    </label>
  );
}

/** What the ticked grant's total says, as typed: null when empty (no total), else its minor units or why it is not an amount. */
function typedTotal(form: FormData, argument: string): { value: number | null; problem: string | null } {
  const text = String(form.get("grantMaxTotal") ?? "").trim();
  if (text === "") return { value: null, problem: null };
  if (!isMinorUnitsField(argument)) return { value: Number(text), problem: null };
  const parsed = majorTextToMinor(text);
  return parsed.ok ? { value: parsed.minor, problem: null } : { value: null, problem: `The grant's total: ${parsed.message}` };
}

/** Why the ticked grant's terms cannot be sent as typed, or null (the server checks the rest). */
export function grantTermsProblem(form: FormData): string | null {
  const totalArgument = String(form.get("grantTotalArgument") ?? "");
  return form.get("grant") === "on" && totalArgument ? typedTotal(form, totalArgument).problem : null;
}

/** The grant terms the form carries when its box is ticked (the server refuses what does not fit). */
export function grantTermsFrom(form: FormData): GrantTerms | undefined {
  if (form.get("grant") !== "on") return undefined;
  const number = (name: string) => {
    const text = String(form.get(name) ?? "").trim();
    return text === "" ? null : Number(text);
  };
  const totalArgument = String(form.get("grantTotalArgument") ?? "") || null;
  const maxTotal = totalArgument ? typedTotal(form, totalArgument).value : null;
  return {
    constraint: String(form.get("grantConstraint") ?? ""), description: String(form.get("grantDescription") ?? ""),
    maxCalls: number("grantMaxCalls"), totalArgument: maxTotal === null ? null : totalArgument, maxTotal,
    ttlSeconds: Math.round((number("grantMinutes") ?? 60) * 60),
  };
}

/** The grant in a sentence, for the approval's confirmation. */
export function grantSentence(grant: GrantTerms): string {
  const limits = [
    grant.maxCalls === null ? null : `at most ${grant.maxCalls} calls`,
    grant.maxTotal === null || grant.totalArgument === null ? null
      : `a total ${grantArgumentName(grant.totalArgument)} of at most ${grantAmount(grant.totalArgument, grant.maxTotal)}`,
  ].filter(Boolean).join(" and ");
  return `You also approve calls like it for ${Math.round(grant.ttlSeconds / 60)} minutes: ${grant.description} (${grant.constraint}), ${limits}.`;
}
