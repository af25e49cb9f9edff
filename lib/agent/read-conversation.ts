import { parseGateOutcomeMessage, type GateOutcome } from "@/lib/agent/gate-outcome";
import type { ChatMessage } from "@/lib/agent/model";
import { unwrapUntrustedToolOutput } from "@/lib/agent/untrusted";

export type JsonRecord = Record<string, unknown>;

/** What became of one tool call, as far as the conversation tells. */
export type CallOutcome =
  | { kind: "result"; data: unknown }
  | GateOutcome
  | { kind: "pending" };

export type ConversationCall = {
  id: string;
  tool: string;
  /** The arguments the assistant wrote, or null when they were not a JSON object. */
  args: JsonRecord | null;
  outcome: CallOutcome;
};

export type Conversation = {
  /** The first user message: the requester's instruction. */
  instruction: string;
  /** Assistant turns so far. */
  assistantTurns: number;
  /** Every tool call in order, with its outcome. */
  calls: ConversationCall[];
};

export function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) => (part && typeof part === "object" && "text" in part && typeof part.text === "string" ? part.text : ""))
      .join("");
  }
  return "";
}

function asRecord(value: unknown): JsonRecord | null {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as JsonRecord) : null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Classifies one tool message. Accepts a wrapped tool output (the result itself, or a whole
 * ToolOutcome `{ ok, result }`), a gate outcome message, or, as a fallback for hand-written loops,
 * plain text that says rejected / expired / denied / failed.
 */
export function classifyToolMessage(tool: string, text: string): CallOutcome {
  const gate = parseGateOutcomeMessage(text);
  if (gate) return gate;
  const wrapped = unwrapUntrustedToolOutput(text);
  if (wrapped) {
    const parsed = parseJson(wrapped.content);
    const data = parsed === undefined ? wrapped.content : parsed;
    const record = asRecord(data);
    if (record && typeof record.ok === "boolean" && asRecord(record.result)) {
      const result = asRecord(record.result) as JsonRecord;
      if (!record.ok) return { kind: "failed", tool, reason: failureReason(result) };
      return { kind: "result", data: result };
    }
    if (record && typeof record.error === "string") return { kind: "failed", tool, reason: record.error };
    if (record && typeof record.exit_code === "number" && (record.exit_code !== 0 || record.timed_out === true)) {
      return { kind: "failed", tool, reason: failureReason(record) };
    }
    return { kind: "result", data };
  }
  const reason = /reason(?:\s+given)?\s*[:：]\s*([\s\S]+)/i.exec(text)?.[1]?.trim() ?? text.trim();
  if (/\bexpired?\b/i.test(text)) return { kind: "expired", tool };
  if (/\brejected\b/i.test(text)) return { kind: "rejected", tool, reason };
  if (/\bdenied\b|\bpolicy\b/i.test(text)) return { kind: "denied", tool, reason };
  if (/\bblocked\b/i.test(text)) return { kind: "blocked", tool, reason };
  if (/\b(?:error|failed|not executed)\b/i.test(text)) return { kind: "failed", tool, reason };
  return { kind: "result", data: parseJson(text) ?? text };
}

function failureReason(result: JsonRecord): string {
  if (typeof result.error === "string") return result.error;
  if (result.timed_out === true) return "the code timed out";
  if (result.oom_killed === true) return "the code ran out of memory";
  const stderr = typeof result.stderr === "string" ? result.stderr.trim().split("\n").slice(-3).join(" ") : "";
  if (typeof result.exit_code === "number") return `exit code ${result.exit_code}${stderr ? `: ${stderr}` : ""}`;
  return "the tool reported a failure";
}

/** Rebuilds the run's history from the chat messages (the planner keeps no state of its own). */
export function readConversation(messages: readonly ChatMessage[]): Conversation {
  const firstUser = messages.find((m) => m.role === "user");
  const calls: ConversationCall[] = [];
  const byId = new Map<string, ConversationCall>();
  let assistantTurns = 0;
  for (const message of messages) {
    if (message.role === "assistant") {
      assistantTurns++;
      for (const call of message.tool_calls ?? []) {
        if (call.type !== "function") continue;
        const entry: ConversationCall = {
          id: call.id,
          tool: call.function.name,
          args: asRecord(parseJson(call.function.arguments)),
          outcome: { kind: "pending" },
        };
        calls.push(entry);
        byId.set(call.id, entry);
      }
    } else if (message.role === "tool") {
      const entry = byId.get(message.tool_call_id);
      if (entry) entry.outcome = classifyToolMessage(entry.tool, messageText(message.content));
    }
  }
  return { instruction: firstUser ? messageText(firstUser.content) : "", assistantTurns, calls };
}
