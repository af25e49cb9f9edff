import type { JsonObject } from "@/lib/canonical/json-value";
import { effectRows, type EffectNow, type EffectPreview } from "@/lib/review/effect-rows";
import { FieldValue } from "@/components/actions/field-value";
import { RevealedText } from "@/components/ui/revealed-text";

/** A value this long that is also an argument is shown once, in Arguments, and referred to here. */
const SHOWN_ONCE_FROM = 200;

/** The argument a long effect value repeats word for word, if any (an email's body is its `after.body`). */
function repeatedArgument(value: unknown, args: JsonObject | null): string | null {
  if (typeof value !== "string" || value.length < SHOWN_ONCE_FROM || !args) return null;
  return Object.keys(args).find((name) => args[name] === value) ?? null;
}

/** A cell's value, or a link to the argument it repeats. */
function EffectValue({ field, value, args }: { field: string; value: unknown; args: JsonObject | null }) {
  const argument = repeatedArgument(value, args);
  if (argument === null) return <FieldValue field={field} value={value} />;
  return (
    <a href="#arguments" className="text-indigo-700 underline">
      same as args.{argument} in Arguments ({(value as string).length.toLocaleString("en-US")} characters)
    </a>
  );
}

/**
 * The tool's effect as a table: the fields as they were at request, as they are now (computed live
 * from the state now), and after execution — computed from Now, so "After" is what running it now
 * would leave (lib/review/effect-rows.ts). Rows that would change, and rows whose state moved since
 * the request, are marked in words.
 */
export function PreviewView({ preview, now, args = null }: {
  preview: EffectPreview | null;
  now?: EffectNow;
  /** The arguments shown above the table: a long value repeating one of them is not shown twice. */
  args?: JsonObject | null;
}) {
  if (!preview) return <p className="text-slate-600">This tool gives no preview.</p>;
  const rows = effectRows(preview, now ?? { read: false, why: "not read" });
  return (
    <div>
      <p className="font-medium"><RevealedText text={preview.summary} /></p>
      {rows.length > 0 && (
        <table className="mt-2 w-full table-fixed border-collapse text-left">
          <caption className="sr-only">Effect at request, now and after execution</caption>
          <thead className="text-xs text-slate-600">
            <tr>
              <th scope="col" className="w-1/4 py-1 pr-2 font-medium">Field</th>
              <th scope="col" className="py-1 pr-2 font-medium">At request</th>
              <th scope="col" className="py-1 pr-2 font-medium">Now</th>
              <th scope="col" className="py-1 font-medium">After</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.field} className={`border-t border-slate-100 align-top ${row.moved ? "bg-red-50/70" : row.changes ? "bg-amber-50/60" : ""}`}>
                <td className="py-1 pr-2 font-mono text-[0.8rem] break-words">
                  {row.field}
                  {row.changes && <span className="ml-1 inline-block rounded bg-amber-100 px-1 font-sans text-[0.7rem] text-amber-950">changes</span>}
                  {row.moved && <span className="ml-1 inline-block rounded bg-red-100 px-1 font-sans text-[0.7rem] text-red-900">changed since request</span>}
                </td>
                <td className="py-1 pr-2">{row.newAtRequest ? <span className="text-slate-600">(new)</span> : <EffectValue field={row.field} value={row.atRequest} args={args} />}</td>
                <td className="py-1 pr-2">
                  {!row.now.read ? <span className="text-slate-600">{row.now.why}</span> : row.now.isNew ? <span className="text-slate-600">(new)</span> : <EffectValue field={row.field} value={row.now.value} args={args} />}
                </td>
                <td className="py-1">
                  <EffectValue field={row.field} value={row.after} args={args} />
                  {row.afterAtRequest !== undefined && (
                    <span className="block text-xs text-slate-600">at request: <EffectValue field={row.field} value={row.afterAtRequest} args={args} /></span>
                  )}
                  {row.afterFrom === "request" && row.now.read && <span className="block text-xs text-slate-600">from the state at request</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
