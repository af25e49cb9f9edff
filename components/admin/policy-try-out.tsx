"use client";

import Link from "next/link";
import { useEffect, useRef, useState, useTransition, type TransitionStartFunction } from "react";
import { buttonClass } from "@/components/ui/button";
import type { DryRunRow } from "@/lib/policy/dry-run-policy";
import type { PolicyTrace, RuleTrace } from "@/lib/policy/trace-policy";
import type { ActionResult } from "@/lib/server/boundary";

type DryRun = (raw: unknown) => Promise<ActionResult<{ rows: DryRunRow[]; changed: number }>>;
type TestRun = (raw: unknown) => Promise<ActionResult<PolicyTrace>>;

const RISK_LEVELS = ["low", "medium", "high", "critical"] as const;
const ROLES = ["requester", "reviewer", "auditor", "admin"] as const;

/** A sample to start from for the built-in tools (demo data: INV-1044 is paid 12,000.00). */
const EXAMPLES: Record<string, object> = {
  refund_invoice: { invoice_number: "INV-1044", amount_minor: 150000, reason: "Damaged goods" },
  cancel_invoice: { invoice_number: "INV-1044", reason: "Duplicate invoice" },
  get_invoice: { invoice_number: "INV-1044" },
  send_email: { to: "someone@example.com", subject: "Your invoice", body: "Hello" },
  run_python: { code: "print(1)" },
};
const exampleFor = (tool: string) => JSON.stringify(EXAMPLES[tool] ?? {}, null, 2);

const fieldClass = "mt-0.5 w-full rounded-md border border-slate-300 px-2 py-1 text-sm";
const OUTCOME_WORDS: Record<RuleTrace["outcome"], string> = { matched: "holds", not_matched: "does not hold", error: "errors (denies)" };

function RuleTraceList({ rules, highlight }: { rules: RuleTrace[]; highlight?: string }) {
  if (rules.length === 0) return <p className="text-xs text-slate-600">The tool has no rules in the draft.</p>;
  return (
    <ol className="mt-1 space-y-0.5 text-xs" aria-label="Rules tried">
      {rules.map((r) => (
        <li key={r.ruleId} className={r.ruleId === highlight ? "rounded bg-indigo-50 px-1 font-semibold" : "px-1"}>
          <code className="font-mono">{r.ruleId}</code> {OUTCOME_WORDS[r.outcome]}{r.decides ? " — decides" : ""}
          {r.error ? <span className="text-red-800"> ({r.error})</span> : null}
        </li>
      ))}
    </ol>
  );
}

function problemsOf(error: { message: string; details?: unknown }): string {
  const errors = (error.details as { errors?: Array<{ path: string; message: string }> } | undefined)?.errors;
  return Array.isArray(errors) && errors.length > 0 ? `${error.message} ${errors.slice(0, 3).map((e) => `${e.path}: ${e.message}`).join(" · ")}` : error.message;
}

/**
 * Trying a draft before saving it: one sample payload (what decides it, and how each rule of its
 * tool fares), and a dry run over the last N actions beside what was decided for them.
 */
export function PolicyTryOut({ text, tools, focus, dryRun, test }: {
  text: string;
  tools: string[];
  /** Set by "Test this rule" in the rules editor: the tool to test and the rule to point out. */
  focus: Focus | null;
  dryRun: DryRun;
  test: TestRun;
}) {
  // The sample test and the dry run wait for each other: one runs at a time.
  const [pending, startTransition] = useTransition();
  return (
    <div className="space-y-4">
      <SampleTest text={text} tools={tools} focus={focus} test={test} pending={pending} startTransition={startTransition} />
      <DryRunSection text={text} dryRun={dryRun} pending={pending} startTransition={startTransition} />
    </div>
  );
}

type Focus = { tool: string; ruleId: string; nonce: number };
type Running = { pending: boolean; startTransition: TransitionStartFunction };

/** One sample payload against the draft: what decides it, and how each rule of its tool fares. */
function SampleTest({ text, tools, focus, test, pending, startTransition }: { text: string; tools: string[]; focus: Focus | null; test: TestRun } & Running) {
  const [tool, setTool] = useState(tools.includes("refund_invoice") ? "refund_invoice" : (tools[0] ?? ""));
  const [argsText, setArgsText] = useState(exampleFor(tool));
  const [riskLevel, setRiskLevel] = useState<(typeof RISK_LEVELS)[number]>("medium");
  const [roles, setRoles] = useState<string[]>(["requester"]);
  const [trace, setTrace] = useState<PolicyTrace | null>(null);
  const [testError, setTestError] = useState<string | null>(null);
  const toolSelect = useRef<HTMLSelectElement>(null);

  // "Test this rule" switches the sample to the rule's tool (state adjusted while rendering, as
  // React recommends for props that reset state), runs it, and moves focus to the sample: the
  // result says whether the rule holds on it and what decides it.
  const [seenFocus, setSeenFocus] = useState(focus?.nonce ?? 0);
  if (focus && focus.nonce !== seenFocus) {
    setSeenFocus(focus.nonce);
    setTool(focus.tool);
    setArgsText(exampleFor(focus.tool));
    setTrace(null);
  }
  const runOnFocus = useRef<(sample: { tool: string; argsText: string }) => void>(() => {});
  // Declared first, so the effect below sees this render's runTest.
  useEffect(() => {
    runOnFocus.current = runTest;
  });
  useEffect(() => {
    if (!focus) return;
    toolSelect.current?.focus();
    runOnFocus.current({ tool: focus.tool, argsText: exampleFor(focus.tool) });
  }, [focus]);

  function runTest(sample: { tool: string; argsText: string } = { tool, argsText }) {
    setTestError(null);
    setTrace(null);
    startTransition(async () => {
      const result = await test({ text, tool: sample.tool, argsText: sample.argsText, requesterRoles: roles, riskLevel, riskTags: [] });
      if (result.ok) setTrace(result.data);
      else setTestError(problemsOf(result.error));
    });
  }

  return (
    <section aria-labelledby="policy-test-heading" className="space-y-2">
      <h3 id="policy-test-heading" className="text-sm font-semibold">Test the draft on a sample</h3>
      <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
        <label className="block text-xs font-medium text-slate-700">
          Sample tool
          <select ref={toolSelect} value={tool} onChange={(e) => { setTool(e.target.value); setArgsText(exampleFor(e.target.value)); }} className={fieldClass}>
            {tools.map((name) => <option key={name} value={name}>{name}</option>)}
          </select>
        </label>
        <label className="block text-xs font-medium text-slate-700">
          Risk level of the sample
          <select value={riskLevel} onChange={(e) => setRiskLevel(e.target.value as (typeof RISK_LEVELS)[number])} className={fieldClass}>
            {RISK_LEVELS.map((level) => <option key={level} value={level}>{level}</option>)}
          </select>
        </label>
      </div>
      <fieldset className="text-xs">
        <legend className="font-medium text-slate-700">Requester roles</legend>
        <div className="flex flex-wrap gap-3">
          {ROLES.map((role) => (
            <label key={role} className="inline-flex min-h-6 items-center gap-1">
              <input type="checkbox" checked={roles.includes(role)} onChange={(e) => setRoles(e.target.checked ? [...roles, role] : roles.filter((r) => r !== role))} />
              {role}
            </label>
          ))}
        </div>
      </fieldset>
      <label className="block text-xs font-medium text-slate-700">
        Sample arguments (JSON)
        <textarea value={argsText} onChange={(e) => setArgsText(e.target.value)} rows={5} spellCheck={false} className={`${fieldClass} font-mono text-xs`} />
      </label>
      <button type="button" className={buttonClass.secondary} disabled={pending || !tool} onClick={() => runTest()}>Test sample</button>
      {testError && <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">{testError}</p>}
      {trace && <SampleResult trace={trace} highlight={focus?.tool === tool ? focus.ruleId : undefined} />}
    </section>
  );
}

/** What the rule "Test this rule" was pressed for did with the sample, in words. */
function ruleVerdict(trace: PolicyTrace, ruleId: string): string {
  const rule = trace.rules.find((r) => r.ruleId === ruleId);
  if (!rule) return `Rule ${ruleId} is not among this tool's rules in the draft.`;
  if (rule.outcome === "error") return `Rule ${ruleId} errors on this sample (${rule.error ?? "see below"}), which denies it.`;
  if (rule.outcome === "not_matched") return `Rule ${ruleId} does not hold on this sample; change the sample's arguments to try a case it catches.`;
  return rule.decides ? `Rule ${ruleId} holds on this sample and decides it.` : `Rule ${ruleId} holds on this sample, but an earlier rule decides it.`;
}

function SampleResult({ trace, highlight }: { trace: PolicyTrace; highlight?: string }) {
  return (
    <div role="status" aria-label="Sample result" className="rounded-md bg-slate-50 px-3 py-2 text-sm">
      {highlight && <p className="font-medium">{ruleVerdict(trace, highlight)}</p>}
      <p><span className="font-semibold">{trace.decision.effect}</span>{trace.decision.ruleId ? <> by rule <code className="font-mono">{trace.decision.ruleId}</code></> : null}{trace.decision.effect === "require_approval" ? ` (${trace.decision.quorum} approval${trace.decision.quorum === 1 ? "" : "s"})` : ""}</p>
      <p className="text-xs text-slate-700">{trace.decision.reason}</p>
      <RuleTraceList rules={trace.rules} highlight={highlight} />
    </div>
  );
}

/** The draft over the last N actions, beside what was decided for them. */
function DryRunSection({ text, dryRun, pending, startTransition }: { text: string; dryRun: DryRun } & Running) {
  const [limit, setLimit] = useState(50);
  const [runResult, setRunResult] = useState<{ rows: DryRunRow[]; changed: number } | null>(null);
  const [runError, setRunError] = useState<string | null>(null);

  function runDry() {
    setRunError(null);
    setRunResult(null);
    startTransition(async () => {
      const result = await dryRun({ text, limit });
      if (result.ok) setRunResult(result.data);
      else setRunError(problemsOf(result.error));
    });
  }

  return (
    <section aria-labelledby="policy-dry-run-heading" className="space-y-2">
      <h3 id="policy-dry-run-heading" className="text-sm font-semibold">Dry run on recent actions</h3>
      <div className="flex flex-wrap items-end gap-2">
        <label className="block text-xs font-medium text-slate-700">
          Last N actions (1–200)
          <input type="number" min={1} max={200} value={limit} onChange={(e) => setLimit(Math.max(1, Math.min(200, Number(e.target.value) || 1)))} className={`${fieldClass} w-28`} />
        </label>
        <button type="button" className={buttonClass.secondary} disabled={pending} onClick={runDry}>Run dry run</button>
      </div>
      {runError && <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">{runError}</p>}
      {runResult && (
        <div role="status" aria-label="Dry run result" className="space-y-1 text-sm">
          <p className="font-medium">
            {runResult.rows.length === 0
              ? "There are no actions yet to run the draft on."
              : `${runResult.changed} of ${runResult.rows.length} recent action${runResult.rows.length === 1 ? "" : "s"} would be decided differently under the draft.`}
          </p>
          {runResult.rows.length > 0 && <DryRunTable rows={runResult.rows} />}
        </div>
      )}
    </section>
  );
}

function DryRunTable({ rows }: { rows: DryRunRow[] }) {
  return (
    <div role="region" aria-label="Recent actions under the draft" tabIndex={0} className="relative max-w-full overflow-x-auto">
    <table className="w-full text-left text-xs">
      <thead>
        <tr className="border-b border-slate-200"><th className="py-1 pr-2">Action</th><th className="pr-2">Decided</th><th className="pr-2">Under the draft</th><th>Rules</th></tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.actionId} className={`border-b border-slate-100 align-top ${row.changed ? "bg-amber-50" : ""}`}>
            <td className="py-1 pr-2"><Link href={`/actions/${row.actionId}`} className="text-indigo-800 underline">{row.summary}</Link><div className="text-slate-600">{row.tool}</div></td>
            <td className="pr-2">{row.recorded.effect}{row.recorded.ruleId ? <div className="font-mono text-slate-600">{row.recorded.ruleId}</div> : null}{row.refusedBeforePolicy ? <div className="text-slate-600">refused before the policy (a state check or the code scan); a draft does not change that</div> : null}</td>
            <td className="pr-2">{row.changed ? <strong>{row.draft.effect} (changed)</strong> : row.draft.effect}{row.draft.ruleId ? <div className="font-mono text-slate-600">{row.draft.ruleId}</div> : null}</td>
            <td>
              <details>
                <summary className="cursor-pointer">How</summary>
                <RuleTraceList rules={row.rules} />
              </details>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
    </div>
  );
}
