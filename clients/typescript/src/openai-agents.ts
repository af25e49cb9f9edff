/**
 * Countersign for the OpenAI Agents SDK (`@openai/agents`): a gated tool pauses the run with the
 * SDK's own interruption, the reviewer's decision in Countersign answers it, and the effect runs
 * through Countersign once. Types only: this module loads nothing from the SDK at run time.
 *
 *   const gate = countersignForAgents(client);
 *   const refund = tool({ name: "refund_invoice", description, parameters, strict: true, ...gate.tool("refund_invoice") });
 *   let result = await run(agent, input);
 *   while (result.interruptions.length) {
 *     await gate.resolveInterruptions(result.state); // waits for the reviewers
 *     result = await run(agent, result.state);
 *   }
 *
 * Each call is keyed by the SDK's `callId` (the submission's Idempotency-Key), so a run resumed
 * from `RunState.fromString` in another process finds the action it already proposed.
 */
import type { FunctionTool, RunState, RunToolApprovalItem } from "@openai/agents";
import { CountersignError, type Countersign } from "./countersign.js";
import { CallGate, argsObject, executionMessage, isRefusal, refusalMessage, type GateOptions, type Verdict } from "./gate.js";

/** The SDK's per-call details handed to `execute` (its type is not exported by name). */
type ToolCallDetails = NonNullable<Parameters<FunctionTool["invoke"]>[2]>;

/** What `resolveInterruptions` decided for one interruption. */
export type AgentsResolution = { callId: string; tool: string } & Verdict;

/** The parts of a RunState the gate uses (any context or agent type). */
export type ResolvableRunState = Pick<RunState<unknown, never>, "getInterruptions" | "approve" | "reject">;

export class CountersignAgentsGate {
  private readonly gate: CallGate;
  private readonly gated = new Set<string>();

  constructor(client: Countersign, options: GateOptions = {}) {
    this.gate = new CallGate(client, options, "openai-agents:");
  }

  /**
   * `needsApproval`, `execute` and `errorFunction` for the SDK's `tool({...})`. `name` is the
   * Countersign tool the call is proposed as (usually the tool's own name).
   */
  tool(name: string) {
    this.gated.add(name);
    const gate = this.gate;
    return {
      /** Proposes the call; pauses the run only when Countersign holds it for a reviewer. */
      needsApproval: async (_runContext: unknown, input: unknown, callId?: string): Promise<boolean> => {
        try {
          return (await gate.submit(requireCallId(callId), name, argsObject(input))).state === "pending";
        } catch (error) {
          // A refusal (unknown tool, bad arguments) is the model's to read: `execute` reports it.
          if (isRefusal(error)) return false;
          throw error;
        }
      },
      /** Runs the approved call through Countersign (once) and returns what the model reads. */
      execute: async (input: unknown, _runContext?: unknown, details?: ToolCallDetails): Promise<string> => {
        const outcome = await gate.run(requireCallId(details?.toolCall?.callId), name, argsObject(input), details?.signal);
        return outcome.ran ? executionMessage(outcome.execution) : outcome.message;
      },
      /** Countersign's refusal in its own words (the SDK would say only "An error occurred"). */
      errorFunction: (_runContext: unknown, error: unknown): string =>
        error instanceof CountersignError ? refusalMessage(error) : "An error occurred while running the tool. Please try again.",
    };
  }

  /**
   * Answers the state's interruptions for gated tools with the reviewers' decisions: approved →
   * `state.approve`; rejected, denied, expired, cancelled or invalidated → `state.reject` with the
   * reason as the message the model reads (the run goes on). Waits for pending decisions (up to
   * `decisionTimeoutMs`; then throws `not_decided` and the state stays resumable). Interruptions of
   * other tools are left for you.
   */
  async resolveInterruptions(state: ResolvableRunState, options: { signal?: AbortSignal } = {}): Promise<AgentsResolution[]> {
    const calls = state.getInterruptions().flatMap((item) => {
      const call = functionCallOf(item);
      return call && this.gated.has(call.tool) ? [{ item, ...call }] : [];
    });
    return Promise.all(
      calls.map(async ({ item, callId, tool, args }) => {
        const verdict = await this.gate.verdict(callId, tool, args, options.signal);
        if (verdict.approved) state.approve(item);
        else state.reject(item, { message: verdict.message });
        return { callId, tool, ...verdict };
      }),
    );
  }
}

export function countersignForAgents(client: Countersign, options: GateOptions = {}): CountersignAgentsGate {
  return new CountersignAgentsGate(client, options);
}

function functionCallOf(item: RunToolApprovalItem): { callId: string; tool: string; args: Record<string, unknown> } | null {
  const raw = item.rawItem;
  if (raw.type !== "function_call") return null;
  return { callId: raw.callId, tool: raw.name, args: argsObject(JSON.parse(raw.arguments) as unknown) };
}

function requireCallId(callId: string | undefined): string {
  if (!callId) throw new CountersignError("no_call_id", "The SDK gave no call id for this tool call, so it cannot be tied to one Countersign action.");
  return callId;
}
