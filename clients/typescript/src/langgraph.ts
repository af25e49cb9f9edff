/**
 * Countersign for LangGraph JS (`@langchain/langgraph` 1.x): a tools node that proposes the model's
 * tool calls to Countersign and, when a reviewer must decide, pauses the graph with LangGraph's own
 * `interrupt()`; the reviewers' decisions resume it (`Command({ resume })`), and the approved calls
 * run through Countersign, once. Types only: pass LangGraph's `interrupt` in, this module loads
 * nothing from LangGraph at run time.
 *
 *   const gate = countersignForLangGraph(client, { interrupt });
 *   const graph = new StateGraph(MessagesAnnotation)
 *     .addNode("agent", callModel).addNode("tools", gate.toolNode())
 *     ...compile({ checkpointer });
 *   let result = await graph.invoke({ messages }, config);
 *   while (isInterrupted(result)) {
 *     result = await graph.invoke(new Command({ resume: await gate.resumeFor(result[INTERRUPT]) }), config);
 *   }
 *
 * Each call is keyed by the thread id and the model's tool call id (the submission's
 * Idempotency-Key): LangGraph re-runs the node on resume, and the re-run finds the same actions.
 */
import type { Interrupt, LangGraphRunnableConfig, interrupt as langGraphInterrupt } from "@langchain/langgraph";
import type { BaseMessage, MessageFieldWithRole } from "@langchain/core/messages";
import { CountersignError, type Countersign, type Submission } from "./countersign.js";
import { CallGate, argsObject, executionMessage, isRefusal, refusalMessage, type GateOptions, type PendingCall, type Verdict } from "./gate.js";

/** What the graph's interrupt carries: the calls waiting for a reviewer. */
export type CountersignInterrupt = { countersign: PendingCall[] };
/** What resumes it: each waiting action's verdict, by action id. */
export type CountersignResume = { countersign: Record<string, Verdict> };

/** A tool message as the messages reducer takes it. */
export type CountersignToolMessage = MessageFieldWithRole & { role: "tool"; content: string; tool_call_id: string; name: string; status: "success" | "error" };

type ToolCallOf = { id: string; name: string; args: Record<string, unknown> };

export class CountersignLangGraphGate {
  private readonly gate: CallGate;
  private readonly interrupt: typeof langGraphInterrupt;

  constructor(client: Countersign, options: GateOptions & { interrupt: typeof langGraphInterrupt }) {
    const { interrupt, ...gateOptions } = options;
    this.gate = new CallGate(client, gateOptions, "langgraph:");
    this.interrupt = interrupt;
  }

  /**
   * The tools node: every tool call of the last AI message is proposed to Countersign. Denied,
   * allowed and refused calls answer at once; calls a reviewer must decide pause the graph with one
   * interrupt (a `CountersignInterrupt`), and on resume the approved ones run through Countersign
   * while the others answer the model with the reason.
   */
  toolNode() {
    return async (state: { messages: BaseMessage[] }, config?: LangGraphRunnableConfig): Promise<{ messages: CountersignToolMessage[] }> => {
      const thread = config?.configurable?.thread_id;
      const scope = typeof thread === "string" || typeof thread === "number" ? `${thread}:` : "";
      const proposals = await Promise.all(
        toolCallsOf(state.messages.at(-1)).map(async (call) => {
          try {
            return { call, callId: scope + call.id, submission: await this.gate.submit(scope + call.id, call.name, call.args) };
          } catch (error) {
            if (isRefusal(error)) return { call, callId: scope + call.id, refusal: refusalMessage(error) };
            throw error;
          }
        }),
      );
      const pending = proposals.flatMap((p) => (p.submission?.state === "pending" ? [{ actionId: p.submission.id, callId: p.callId, tool: p.call.name, args: p.call.args }] : []));
      // Not inside a try: interrupt() pauses the graph by throwing.
      const verdicts = pending.length ? resumeVerdicts(this.interrupt<CountersignInterrupt, unknown>({ countersign: pending })) : {};
      const messages = await Promise.all(
        proposals.map(async (p): Promise<CountersignToolMessage> => {
          const reply = (content: string, status: "success" | "error"): CountersignToolMessage => ({ role: "tool", content, tool_call_id: p.call.id, name: p.call.name, status });
          if (!p.submission) return reply(p.refusal ?? "Countersign did not accept this call.", "error");
          return this.answer(p.callId, p.call, p.submission, verdicts, config?.signal).then(([text, ok]) => reply(text, ok ? "success" : "error"));
        }),
      );
      return { messages };
    };
  }

  /**
   * Waits for the reviewers' decisions on the graph's Countersign interrupts and returns the
   * resume map for `new Command({ resume })`, keyed by interrupt id. Other interrupts are left
   * out; add their answers to the map yourself.
   */
  async resumeFor(interrupts: ReadonlyArray<Interrupt> | undefined, options: { signal?: AbortSignal } = {}): Promise<Record<string, CountersignResume>> {
    const resume: Record<string, CountersignResume> = {};
    for (const item of interrupts ?? []) {
      const value = item.value as Partial<CountersignInterrupt> | undefined;
      if (!item.id || !Array.isArray(value?.countersign)) continue;
      const verdicts = await Promise.all(value.countersign.map((call) => this.gate.verdict(call.callId, call.tool, call.args, options.signal)));
      resume[item.id] = { countersign: Object.fromEntries(value.countersign.map((call, i) => [call.actionId, verdicts[i]])) };
    }
    return resume;
  }

  private async answer(callId: string, call: ToolCallOf, submission: Submission, verdicts: Record<string, Verdict>, signal?: AbortSignal): Promise<[string, boolean]> {
    if (submission.state === "pending") {
      const verdict = verdicts[submission.id];
      if (!verdict) return ["Not run: the graph was resumed without Countersign's decision on this call.", false];
      if (!verdict.approved) return [verdict.message, false];
    }
    try {
      const outcome = await this.gate.run(callId, call.name, call.args, signal);
      if (!outcome.ran) return [outcome.message, false];
      return [executionMessage(outcome.execution), outcome.execution.state === "succeeded"];
    } catch (error) {
      if (error instanceof CountersignError) return [refusalMessage(error), false];
      throw error;
    }
  }
}

export function countersignForLangGraph(client: Countersign, options: GateOptions & { interrupt: typeof langGraphInterrupt }): CountersignLangGraphGate {
  return new CountersignLangGraphGate(client, options);
}

/** The tool calls of an AI message (none for any other message). */
function toolCallsOf(message: BaseMessage | undefined): ToolCallOf[] {
  if (!message || !("tool_calls" in message) || !Array.isArray(message.tool_calls)) return [];
  return (message.tool_calls as unknown[]).flatMap((call) => {
    const c = call as { id?: unknown; name?: unknown; args?: unknown };
    return typeof c.id === "string" && typeof c.name === "string" ? [{ id: c.id, name: c.name, args: argsObject(c.args) }] : [];
  });
}

/** The resume value as `resumeFor` makes it; anything else resumes nothing (no call runs). */
function resumeVerdicts(value: unknown): Record<string, Verdict> {
  const verdicts = (value as Partial<CountersignResume> | null)?.countersign;
  return verdicts && typeof verdicts === "object" ? verdicts : {};
}
