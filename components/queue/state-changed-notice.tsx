import type { FieldChange } from "@/lib/approvals/payload-diff";
import { stateFieldLabel, statusFirst } from "@/lib/review/state-verdict";
import { formatMinor, isMinorUnitsField } from "@/lib/tools/money";
import { RevealedShortText } from "@/components/ui/revealed-short-text";

function brief(path: string, value: unknown): string {
  if (isMinorUnitsField(path) && typeof value === "number" && Number.isInteger(value)) return formatMinor(value, "").trim();
  const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** "State changed since request", with what changed in words (field: at request → now), for a queue row or the dialog. */
export function StateChangedNotice({ changes, more }: { changes: FieldChange[]; more: number }) {
  return (
    <div role="note" className="mt-1 rounded bg-red-50 px-2 py-1 text-xs text-red-900">
      <span className="font-semibold">State changed since request</span>
      {changes.length > 0 && (
        <span>
          {": "}
          {statusFirst(changes).slice(0, 3).map((c, i) => (
            <span key={c.path}>
              {i > 0 && "; "}
              {stateFieldLabel(c.path)} <RevealedShortText text={brief(c.path, c.before)} /> → <RevealedShortText text={brief(c.path, c.after)} />
            </span>
          ))}
          {changes.length + more > 3 && ` (+${(changes.length + more - 3).toLocaleString("en")} more)`}
        </span>
      )}
      <span> — an approval would be invalidated at execution: re-read the state first.</span>
    </div>
  );
}
