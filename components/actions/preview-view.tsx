import type { JsonObject } from "@/lib/canonical/json-value";
import { InlineValue } from "@/components/actions/section";
import { RevealedText } from "@/components/ui/revealed-text";

/** The tool's before/after effect as a two-column table; changed rows are marked in words. */
export function PreviewView({ preview }: { preview: { summary: string; before: JsonObject | null; after: JsonObject | null } | null }) {
  if (!preview) return <p className="text-slate-600">This tool gives no preview.</p>;
  const keys = [...new Set([...Object.keys(preview.before ?? {}), ...Object.keys(preview.after ?? {})])];
  return (
    <div>
      <p className="font-medium"><RevealedText text={preview.summary} /></p>
      {keys.length > 0 && (
        <table className="mt-2 w-full table-fixed border-collapse text-left">
          <caption className="sr-only">Effect before and after execution</caption>
          <thead className="text-xs text-slate-600">
            <tr>
              <th scope="col" className="w-1/3 py-1 pr-2 font-medium">Field</th>
              <th scope="col" className="py-1 pr-2 font-medium">Now</th>
              <th scope="col" className="py-1 font-medium">After execution</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => {
              const before = preview.before?.[key] ?? null;
              const after = preview.after?.[key] ?? null;
              const changed = preview.before !== null && JSON.stringify(before) !== JSON.stringify(after);
              return (
                <tr key={key} className={`border-t border-slate-100 align-top ${changed ? "bg-amber-50/60" : ""}`}>
                  <td className="py-1 pr-2 font-mono text-[0.8rem] break-words">
                    {key}
                    {changed && <span className="ml-1 inline-block rounded bg-amber-100 px-1 font-sans text-[0.7rem] text-amber-950">changes</span>}
                  </td>
                  <td className="py-1 pr-2">{preview.before ? <InlineValue value={before} /> : <span className="text-slate-400">(new)</span>}</td>
                  <td className="py-1"><InlineValue value={after} /></td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
