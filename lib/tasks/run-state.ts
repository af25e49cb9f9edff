import type { ChatMessage } from "@/lib/agent/model";

/** A task's server-side run state (Task.runState): survives restarts and moves between workers. */
export type RunState = {
  v: 1;
  /** The whole conversation with the model, system prompt first. */
  messages: ChatMessage[];
  /** Tool calls waiting for a decision, in call order. */
  pending: Array<{ callId: string; actionId: string; tool: string }>;
  /** Strings read from tool output (untrusted), for provenance risk tags on later proposals. */
  untrusted: string[];
};

export function parseRunState(value: unknown): RunState {
  const state = value as Partial<RunState> | null;
  if (!state || state.v !== 1 || !Array.isArray(state.messages)) throw new Error("The task's run state is not readable.");
  return { v: 1, messages: state.messages, pending: state.pending ?? [], untrusted: state.untrusted ?? [] };
}
