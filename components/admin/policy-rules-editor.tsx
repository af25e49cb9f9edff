"use client";

import { useState } from "react";
import { buttonClass } from "@/components/ui/button";
import type { PolicyValidationError } from "@/lib/policy/compile-policy";

const EFFECTS = ["allow", "require_approval", "deny"] as const;
/** Fields that only a require_approval rule may carry (the validator refuses them elsewhere). */
const APPROVAL_ONLY = ["quorum", "eligibleRoles", "ttlSeconds", "signature", "minViewSeconds", "escalate", "warnBeforeExpiry", "grantMaxTtl", "grants"];

type Rule = Record<string, unknown> & { id?: unknown; when?: unknown; effect?: unknown; reason?: unknown };
type Doc = { tools?: Record<string, { rules?: Rule[] }> } & Record<string, unknown>;

function parse(text: string): Doc | null {
  try {
    const doc: unknown = JSON.parse(text);
    if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return null;
    const tools = (doc as Doc).tools;
    if (tools !== undefined && (typeof tools !== "object" || tools === null || Array.isArray(tools))) return null;
    return doc as Doc;
  } catch {
    return null;
  }
}

const fieldClass = "mt-0.5 w-full rounded-md border border-slate-300 px-2 py-1 text-sm";

/**
 * The policy's rules as a form beside the JSON: per tool, each rule's id, condition, outcome and
 * reason. The JSON text stays the one source: every edit here rewrites it, and every edit there
 * re-renders this, so the two never disagree. Fields this form does not show (quorum, tier, …)
 * are kept as they are in the JSON.
 */
export function PolicyRulesEditor({ text, onChange, tools, onTestRule, errors = [] }: {
  text: string;
  onChange: (text: string) => void;
  tools: string[];
  onTestRule: (tool: string, ruleId: string) => void;
  /** The last validation's problems: each is shown at the field it concerns. */
  errors?: PolicyValidationError[];
}) {
  const doc = parse(text);
  const listed = Object.keys(doc?.tools ?? {});
  const [chosen, setChosen] = useState<string>(listed[0] ?? tools[0] ?? "");
  // New problems bring their first rule's tool into view (state adjusted while rendering).
  const [seenErrors, setSeenErrors] = useState(errors);
  if (errors !== seenErrors) {
    setSeenErrors(errors);
    const first = errors.map((e) => ruleAt(e.path)).find((at) => at !== null);
    if (first) setChosen(first.tool);
  }
  if (!doc) {
    return <p role="status" className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-950">The JSON does not parse, so the rules cannot be shown here: fix it in the JSON view.</p>;
  }
  const tool = chosen;
  const rules: Rule[] = doc.tools?.[tool]?.rules ?? [];
  const write = (next: Rule[]) => onChange(JSON.stringify(withRules(doc, tool, next), null, 2));

  return (
    <div className="space-y-2" aria-label="Rules editor" role="group">
      <ToolPicker tool={tool} listed={listed} tools={tools} errors={errors} onChoose={setChosen} />
      <p className="text-xs text-slate-600">Rules are tried in order; the first whose condition holds decides. A rule with no condition always holds.</p>
      <ol className="space-y-2" aria-label={`Rules of ${tool}`}>
        {rules.map((rule, i) => (
          <RuleCard
            key={i}
            rule={rule}
            index={i}
            count={rules.length}
            onField={(field, value) => write(withField(rules, i, field, value))}
            onMove={(by) => write(moved(rules, i, by))}
            onRemove={() => write(rules.filter((_, j) => j !== i))}
            onTest={(ruleId) => onTestRule(tool, ruleId)}
            errors={errors.filter((e) => { const at = ruleAt(e.path); return at?.tool === tool && at.index === i; })}
          />
        ))}
      </ol>
      <button type="button" className={buttonClass.secondary} onClick={() => write([...rules, newRuleFor(tool, rules.length)])}>
        Add a rule to {tool}
      </button>
    </div>
  );
}

/** The tool whose rules are shown: the policy's tools, then the tenant's others (denied), each with its problem count. */
function ToolPicker({ tool, listed, tools, errors, onChoose }: {
  tool: string;
  listed: string[];
  tools: string[];
  errors: PolicyValidationError[];
  onChoose: (tool: string) => void;
}) {
  const options = [...new Set([...listed, ...tools])];
  const problemsOf = (name: string) => errors.filter((e) => ruleAt(e.path)?.tool === name || e.path === `tools.${name}`);
  return (
    <label className="block text-sm font-medium">
      Tool
      <select value={tool} onChange={(e) => onChoose(e.target.value)} className={fieldClass}>
        {options.map((name) => (
          <option key={name} value={name}>{name}{listed.includes(name) ? "" : " (not in the policy: denied)"}{problemsOf(name).length > 0 ? ` — ${problemsOf(name).length} problem${problemsOf(name).length === 1 ? "" : "s"}` : ""}</option>
        ))}
      </select>
    </label>
  );
}

/** A copy of the policy with one tool's rules replaced; every other key kept as it was. */
function withRules(doc: Doc, tool: string, rules: Rule[]): Doc {
  const copy = structuredClone(doc);
  copy.tools = { ...(copy.tools ?? {}), [tool]: { ...(copy.tools?.[tool] ?? {}), rules } };
  return copy;
}

/** The rules with one field of rule `i` set; an empty condition is removed, and a rule that no longer asks for approval drops the approval-only fields. */
function withField(rules: Rule[], i: number, field: RuleField, value: string): Rule[] {
  const next = rules.map((r) => ({ ...r }));
  const rule = next[i];
  if (field === "when" && value.trim() === "") delete rule.when;
  else rule[field] = value;
  if (field === "effect" && value !== "require_approval") for (const f of APPROVAL_ONLY) delete rule[f];
  return next;
}

/** The rules with rule `i` moved one place up (-1) or down (1). */
function moved(rules: Rule[], i: number, by: -1 | 1): Rule[] {
  const next = [...rules];
  const [rule] = next.splice(i, 1);
  next.splice(i + by, 0, rule);
  return next;
}

/** A new rule for `tool`, numbered after its `count` rules, asking for approval until edited. */
function newRuleFor(tool: string, count: number): Rule {
  return { id: `${tool.replace(/[^a-z0-9_.-]/g, "-")}-rule-${count + 1}`.slice(0, 64), effect: "require_approval", reason: "Describe why this rule exists." };
}

type RuleField = "id" | "when" | "effect" | "reason";
const RULE_FIELDS: readonly string[] = ["id", "when", "effect", "reason"] satisfies RuleField[];

/** The rule a validation path is about (`tools.<tool>.rules.<i>[.<field>…]`), or null. */
function ruleAt(path: string): { tool: string; index: number; field: string | null } | null {
  const match = /^tools\.(.+)\.rules\.(\d+)(?:\.([^.]+))?/.exec(path);
  return match ? { tool: match[1], index: Number(match[2]), field: match[3] ?? null } : null;
}

/** A field's problems, under it; `id` is what the field's aria-describedby names. */
function FieldProblems({ id, problems }: { id: string; problems: PolicyValidationError[] }) {
  if (problems.length === 0) return null;
  return (
    <ul id={id} className="mt-0.5 space-y-0.5 text-xs text-red-800">
      {problems.map((p, i) => <li key={i}>{p.message}</li>)}
    </ul>
  );
}

/** One rule of the chosen tool: its id, outcome, condition and reason, and where it stands in the order. */
function RuleCard({ rule, index, count, onField, onMove, onRemove, onTest, errors }: {
  rule: Rule;
  index: number;
  count: number;
  onField: (field: RuleField, value: string) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
  onTest: (ruleId: string) => void;
  /** This rule's problems from the last validation. */
  errors: PolicyValidationError[];
}) {
  const id = typeof rule.id === "string" ? rule.id : "";
  const at = (field: RuleField) => errors.filter((e) => ruleAt(e.path)?.field === field);
  // Problems with the rule as a whole or with a field this form does not show (quorum, roles, …).
  const rest = errors.filter((e) => !RULE_FIELDS.includes(ruleAt(e.path)?.field ?? ""));
  const described = (field: RuleField) => (at(field).length > 0 ? { "aria-invalid": true, "aria-describedby": `rule-${index}-${field}-problems` } : {});
  return (
    <li className="rounded-md border border-slate-200 p-2" aria-label={`Rule ${index + 1}${id ? `: ${id}` : ""}`}>
      {rest.length > 0 && (
        <ul aria-label="Problems with this rule" className="mb-1 space-y-0.5 rounded bg-red-50 px-2 py-1 text-xs text-red-900">
          {rest.map((p, i) => <li key={i}><code className="font-mono">{p.path.replace(/^tools\.[^.]+\.rules\.\d+\.?/, "") || "rule"}</code> {p.message}</li>)}
        </ul>
      )}
      <div className="grid grid-cols-1 gap-2 sm:grid-cols-[minmax(0,1fr)_12rem]">
        <div className="min-w-0">
          <label className="block text-xs font-medium text-slate-700">
            Rule id
            <input value={id} onChange={(e) => onField("id", e.target.value)} className={fieldClass} {...described("id")} />
          </label>
          <FieldProblems id={`rule-${index}-id-problems`} problems={at("id")} />
        </div>
        <div className="min-w-0">
          <label className="block text-xs font-medium text-slate-700">
            Outcome
            <select value={String(rule.effect ?? "")} onChange={(e) => onField("effect", e.target.value)} className={fieldClass} {...described("effect")}>
              {EFFECTS.map((effect) => <option key={effect} value={effect}>{effect}</option>)}
            </select>
          </label>
          <FieldProblems id={`rule-${index}-effect-problems`} problems={at("effect")} />
        </div>
      </div>
      <div className="mt-1 min-w-0">
        <label className="block text-xs font-medium text-slate-700">
          Condition (CEL; empty: always)
          <input value={typeof rule.when === "string" ? rule.when : ""} onChange={(e) => onField("when", e.target.value)} spellCheck={false} className={`${fieldClass} font-mono`} {...described("when")} />
        </label>
        <FieldProblems id={`rule-${index}-when-problems`} problems={at("when")} />
      </div>
      <div className="mt-1 min-w-0">
        <label className="block text-xs font-medium text-slate-700">
          Reason (shown to requesters and reviewers)
          <input value={typeof rule.reason === "string" ? rule.reason : ""} onChange={(e) => onField("reason", e.target.value)} className={fieldClass} {...described("reason")} />
        </label>
        <FieldProblems id={`rule-${index}-reason-problems`} problems={at("reason")} />
      </div>
      <div className="mt-2 flex flex-wrap gap-2 text-sm">
        <button type="button" className={buttonClass.secondary} onClick={() => onTest(id)}>Test this rule</button>
        <button type="button" className={buttonClass.secondary} disabled={index === 0} onClick={() => onMove(-1)}>Move up</button>
        <button type="button" className={buttonClass.secondary} disabled={index === count - 1} onClick={() => onMove(1)}>Move down</button>
        <button type="button" className={buttonClass.secondary} onClick={onRemove}>Remove</button>
      </div>
    </li>
  );
}
