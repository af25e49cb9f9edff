import type { JsonObject } from "@/lib/canonical/json-value";
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

/** The effect's "before" computed from the state now, or why it was not read. */
export type EffectNow = { read: true; before: JsonObject | null } | { read: false; why: string };

/**
 * The tool's effect as a table: the fields as they were at request, as they are now (computed
 * live from the state now), and after execution. Rows that would change, and rows whose state
 * moved since the request, are marked in words.
 */
export function PreviewView({ preview, now, args = null }: {
  preview: { summary: string; before: JsonObject | null; after: JsonObject | null } | null;
  now?: EffectNow;
  /** The arguments shown above the table: a long value repeating one of them is not shown twice. */
  args?: JsonObject | null;
}) {
  if (!preview) return <p className="text-slate-600">This tool gives no preview.</p>;
  const keys = [...new Set([...Object.keys(preview.before ?? {}), ...Object.keys(preview.after ?? {})])];
  const live = now ?? { read: false, why: "not read" };
  return (
    <div>
      <p className="font-medium"><RevealedText text={preview.summary} /></p>
      {keys.length > 0 && (
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
            {keys.map((key) => {
              const before = preview.before?.[key] ?? null;
              const after = preview.after?.[key] ?? null;
              const changes = preview.before !== null && JSON.stringify(before) !== JSON.stringify(after);
              const nowValue = live.read ? (live.before?.[key] ?? null) : null;
              const moved = live.read && preview.before !== null && JSON.stringify(nowValue) !== JSON.stringify(before);
              return (
                <tr key={key} className={`border-t border-slate-100 align-top ${moved ? "bg-red-50/70" : changes ? "bg-amber-50/60" : ""}`}>
                  <td className="py-1 pr-2 font-mono text-[0.8rem] break-words">
                    {key}
                    {changes && <span className="ml-1 inline-block rounded bg-amber-100 px-1 font-sans text-[0.7rem] text-amber-950">changes</span>}
                    {moved && <span className="ml-1 inline-block rounded bg-red-100 px-1 font-sans text-[0.7rem] text-red-900">changed since request</span>}
                  </td>
                  <td className="py-1 pr-2">{preview.before ? <EffectValue field={key} value={before} args={args} /> : <span className="text-slate-600">(new)</span>}</td>
                  <td className="py-1 pr-2">
                    {!live.read ? <span className="text-slate-600">{live.why}</span> : live.before ? <EffectValue field={key} value={nowValue} args={args} /> : <span className="text-slate-600">(new)</span>}
                  </td>
                  <td className="py-1"><EffectValue field={key} value={after} args={args} /></td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
