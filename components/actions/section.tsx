import { RevealedText } from "@/components/ui/revealed-text";
import { Collapsible } from "@/components/ui/collapsible";
import { textSize } from "@/lib/review/text-size";
import { jsonWithMoney } from "@/lib/review/json-with-money";
import { RESULT_SHOWN_CHARACTERS, type ResultText, type UnpreparedResult } from "@/lib/review/result-text";

/** One titled block of the action page. */
export function Section({ title, id, aside, children }: { title: string; id: string; aside?: React.ReactNode; children: React.ReactNode }) {
  return (
    <section aria-labelledby={id} className="rounded-lg border border-slate-200 bg-white">
      <div className="flex items-center justify-between gap-2 border-b border-slate-100 px-4 py-2">
        <h2 id={id} className="text-sm font-semibold text-slate-900">{title}</h2>
        {aside}
      </div>
      <div className="px-4 py-3">{children}</div>
    </section>
  );
}

/**
 * Any value as pretty JSON in a <pre>: text only, never interpreted as HTML or markdown. Money in
 * minor units is followed by a comment in major units (450.00), as every other place shows it.
 */
export function JsonBlock({ value, label, sortKeys = false }: { value: unknown; label?: string; sortKeys?: boolean }) {
  const shown = sortKeys ? sortedKeys(value) : value;
  return <TextBlock text={shown === undefined ? "" : jsonWithMoney(shown)} label={label} />;
}

/**
 * An execution's result as the loader prepared it on the compute pool (lib/review/result-text.ts):
 * its start, and a line saying how much is not shown.
 */
export function ResultBlock({ result }: { result: ResultText | UnpreparedResult }) {
  if ("unprepared" in result) {
    return (
      <p role="note" className="rounded-md bg-orange-50 p-2 text-orange-950 ring-1 ring-orange-300">
        The result ({result.characters.toLocaleString("en")} characters) could not be prepared in time, so it is not shown. Reload the page to try again.
      </p>
    );
  }
  return (
    <>
      <TextBlock text={result.text} label="Result" />
      {result.omittedCharacters > 0 && (
        <p role="note" className="text-xs text-slate-700">
          {result.omittedCharacters.toLocaleString("en")} more characters not shown: the page shows the first {RESULT_SHOWN_CHARACTERS.toLocaleString("en")} of a result.
          The console offers no download of it; the agent that requested the action reads the whole result of its latest run through the API (GET /api/v1/actions/{"{id}"}).
        </p>
      )}
    </>
  );
}

/** Untrusted text in a <pre>, revealed (hidden characters shown) and collapsed when long. */
function TextBlock({ text, label }: { text: string; label?: string }) {
  return (
    <Collapsible size={textSize(text)} what={label ? label.toLowerCase() : "value"}>
      <pre aria-label={label} className="overflow-x-auto whitespace-pre-wrap break-words [overflow-wrap:anywhere] rounded-md bg-slate-50 p-3 font-mono text-[0.8rem] leading-relaxed text-slate-900 ring-1 ring-inset ring-slate-200">
        <RevealedText text={text} />
      </pre>
    </Collapsible>
  );
}

/** A JSON value inline (strings without quotes when short and simple). */
export function InlineValue({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span className="text-slate-600">—</span>;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return <span className="whitespace-pre-wrap break-words [overflow-wrap:anywhere] font-mono text-[0.8rem]"><RevealedText text={text} /></span>;
}

/** Objects with their keys in one order, so two snapshots can be read side by side. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]));
  }
  return value;
}
