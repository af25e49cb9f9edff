import { parseStrictJson } from "@/lib/canonical/parse-strict-json";
import { stripInvisible } from "@/lib/agent/untrusted";

/**
 * What the gate did with a proposed call when it did not simply run it. The run loop sends it back
 * to the model as the tool result of that call (every tool call needs one), so the model can revise.
 */
export type GateOutcome =
  | { kind: "rejected"; tool: string; reason: string }
  | { kind: "expired"; tool: string }
  | { kind: "denied"; tool: string; reason: string }
  | { kind: "blocked"; tool: string; reason: string }
  | { kind: "invalid"; tool: string; reason: string }
  | { kind: "failed"; tool: string; reason: string }
  | { kind: "cancelled"; tool: string; reason: string };

const PREFIX = "countersign-outcome: ";
const KINDS = new Set(["rejected", "expired", "denied", "blocked", "invalid", "failed", "cancelled"]);

function sentence(outcome: GateOutcome): string {
  switch (outcome.kind) {
    case "rejected":
      return `A reviewer rejected this ${outcome.tool} call; it was not executed. The reviewer's reason: ${outcome.reason || "(none given)"}. If the reason says how to correct the call you may propose the corrected call once; otherwise stop and tell the requester.`;
    case "expired":
      return `The approval request for this ${outcome.tool} call expired before anyone decided it; it was not executed. This is not a rejection. Tell the requester it expired.`;
    case "denied":
      return `The tenant's policy denies this ${outcome.tool} call; it was not executed and no reviewer can approve it. Policy reason: ${outcome.reason}.`;
    case "blocked":
      return `This ${outcome.tool} call was blocked before review and was not executed: ${outcome.reason}. Fix the problem if you can, otherwise stop and explain.`;
    case "invalid":
      return `This ${outcome.tool} call was not executed: ${outcome.reason}`;
    case "failed":
      return `This ${outcome.tool} call was approved but failed when executed: ${outcome.reason}.`;
    case "cancelled":
      return `This ${outcome.tool} call was cancelled and not executed: ${outcome.reason}.`;
  }
}

/**
 * The tool-result text for a gate outcome: one machine-readable first line (the offline planner and
 * the timeline read it) and one sentence for a model. Reasons are cleaned of invisible characters.
 */
export function gateOutcomeMessage(outcome: GateOutcome): string {
  const clean = { ...outcome, ...("reason" in outcome ? { reason: stripInvisible(outcome.reason).trim().slice(0, 2000) } : {}) } as GateOutcome;
  return `${PREFIX}${JSON.stringify(clean)}\n${sentence(clean)}`;
}

/** Reads a gate outcome back from a tool message, or null when the text is something else. */
export function parseGateOutcomeMessage(text: string): GateOutcome | null {
  if (!text.startsWith(PREFIX)) return null;
  const line = text.slice(PREFIX.length).split("\n", 1)[0];
  try {
    const value = parseStrictJson(line);
    if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
    const kind = value.kind;
    const tool = value.tool;
    if (typeof kind !== "string" || !KINDS.has(kind) || typeof tool !== "string") return null;
    if (kind === "expired") return { kind, tool };
    const reason = typeof value.reason === "string" ? value.reason : "";
    return { kind, tool, reason } as GateOutcome;
  } catch {
    return null;
  }
}

/**
 * A policy denial as the model is told it: code the pre-scan refused (or that no sandbox could
 * run) is `blocked` — the model may fix it — and anything else `denied`.
 */
export function denialOutcome(tool: { name: string; kind: "tool" | "code" }, reason: string): GateOutcome {
  const blocked = tool.kind === "code" && /blocked|does not parse|No sandbox/.test(reason);
  return { kind: blocked ? "blocked" : "denied", tool: tool.name, reason };
}
