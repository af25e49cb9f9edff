import { listedChanges, type FieldChange } from "@/lib/approvals/payload-diff";
import { FieldValue } from "@/components/actions/field-value";
import { WordDiff } from "@/components/actions/word-diff";

const CHANGE = {
  added: "bg-emerald-50 text-emerald-900",
  removed: "bg-red-50 text-red-900",
  changed: "bg-amber-50 text-amber-950",
} as const;

/**
 * Field-by-field changes (before → after), each labelled in words as well as colour; a changed text
 * word by word. At most MAX_LISTED rows, and a last one counting the rest.
 */
export function FieldDiff({ changes, caption }: { changes: FieldChange[]; caption: string }) {
  if (changes.length === 0) return <p className="text-slate-600">No field changed.</p>;
  const { listed, more } = listedChanges(changes);
  return (
    <table className="w-full table-fixed border-collapse text-left">
      <caption className="sr-only">{caption}</caption>
      <thead className="text-xs text-slate-600">
        <tr>
          <th scope="col" className="w-1/4 py-1 pr-2 font-medium">Field</th>
          <th scope="col" className="w-20 py-1 pr-2 font-medium">Change</th>
          <th scope="col" className="py-1 pr-2 font-medium">Before</th>
          <th scope="col" className="py-1 font-medium">After</th>
        </tr>
      </thead>
      <tbody>
        {listed.map((c) => (
          <tr key={c.path} className="border-t border-slate-100 align-top">
            <td className="py-1 pr-2 font-mono text-[0.8rem] break-words">{c.path}</td>
            <td className="py-1 pr-2"><span className={`rounded px-1.5 py-0.5 text-xs font-medium ${CHANGE[c.change]}`}>{c.change}</span></td>
            <td className="py-1 pr-2 text-red-900">{c.words ? <WordDiff words={c.words} side="before" /> : <FieldValue field={c.path} value={c.before} />}</td>
            <td className="py-1 text-emerald-900">{c.words ? <WordDiff words={c.words} side="after" /> : <FieldValue field={c.path} value={c.after} />}</td>
          </tr>
        ))}
        {more > 0 && (
          <tr className="border-t border-slate-100">
            <td colSpan={4} className="py-1 text-slate-700" data-testid="more-changes">
              and {more.toLocaleString("en")} more changed field{more === 1 ? "" : "s"}, not listed one by one
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}
