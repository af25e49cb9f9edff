import type OpenAI from "openai";
import { gateOutcomeMessage, type GateOutcome } from "@/lib/agent/gate-outcome";
import { wrapUntrustedToolOutput, type WrapOptions } from "@/lib/agent/untrusted";

/** The tool message for a call that ran: its output wrapped as untrusted data. */
export function toolResultMessage(toolCallId: string, toolName: string, output: unknown, opts?: WrapOptions): OpenAI.Chat.ChatCompletionToolMessageParam {
  return { role: "tool", tool_call_id: toolCallId, content: wrapUntrustedToolOutput(toolName, output, opts) };
}

/** The tool message for a call the gate did not run (rejected, expired, denied, blocked, invalid, failed). */
export function gateOutcomeToolMessage(toolCallId: string, outcome: GateOutcome): OpenAI.Chat.ChatCompletionToolMessageParam {
  return { role: "tool", tool_call_id: toolCallId, content: gateOutcomeMessage(outcome) };
}
