import type { ActionDetail } from "@/lib/review/action-detail";
import { NOT_INSPECTABLE_TAG } from "@/lib/risk/deceptive-text";
import { CodeView } from "@/components/actions/code-view";
import { JsonBlock, Section } from "@/components/actions/section";

/** What will run: the code with its scan findings, or the arguments exactly as they will be executed. */
export function ArgumentsSection({ action }: { action: ActionDetail }) {
  const { current } = action;
  if (action.kind === "code" && current.code !== null) {
    return (
      <Section title={`Code (${current.language ?? "python"}) with scan findings`} id="code" aside={<span className="text-xs text-slate-600">{current.scanFindings.length} finding{current.scanFindings.length === 1 ? "" : "s"}</span>}>
        <CodeView code={current.code} findings={current.scanFindings} language={current.language} />
      </Section>
    );
  }
  const notInspectable = current.riskTags.filter((t) => t.id === NOT_INSPECTABLE_TAG);
  return (
    <Section title="Arguments" id="arguments" aside={<span className="text-xs text-slate-600">plain text, exactly as they will be executed; money also in major units after //</span>}>
      {notInspectable.length > 0 && (
        <p role="note" className="mb-2 rounded-md bg-orange-50 px-3 py-2 text-[0.85rem] text-orange-950">
          <span className="font-semibold">Not inspectable: </span>
          {notInspectable.map((t) => t.path ?? "a value").join(", ")}. The console cannot analyse {notInspectable.length === 1 ? "this value" : "these values"}; decide only if you know what {notInspectable.length === 1 ? "it is" : "they are"}. It cannot be approved in bulk.
        </p>
      )}
      <JsonBlock value={current.args} label="Arguments as plain text" />
    </Section>
  );
}
