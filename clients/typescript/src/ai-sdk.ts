/**
 * Countersign for the Vercel AI SDK (`ai` 7) tool approvals: a call Countersign holds for a
 * reviewer comes back from `generateText`/`streamText`/`ToolLoopAgent` as the SDK's own
 * `tool-approval-request`; the reviewer's decision becomes the `tool-approval-response`; on the
 * next call the approved tool's `execute` runs the action through Countersign, once. Types only:
 * this module loads nothing from the SDK at run time.
 *
 *   const gate = countersignForAiSdk(client);
 *   const tools = { refund_invoice: tool({ description, inputSchema, execute: gate.execute("refund_invoice") }) };
 *   const result = await generateText({ model, tools, messages, toolApproval: gate.toolApproval, stopWhen: stepCountIs(5) });
 *   messages.push(...result.responseMessages, { role: "tool", content: await gate.approvalResponses(result.content) });
 *   const next = await generateText({ model, tools, messages, toolApproval: gate.toolApproval, stopWhen: stepCountIs(5) });
 *
 * Each call is keyed by the SDK's `toolCallId` (the submission's Idempotency-Key): asking again —
 * the SDK re-checks approvals when it continues — finds the same action.
 */
import type { ContentPart, ToolApprovalResponse, ToolApprovalStatus, ToolSet } from "ai";
import { CountersignError, type Countersign } from "./countersign.js";
import { CallGate, argsObject, executionMessage, isRefusal, notRunMessage, refusalMessage, type GateOptions } from "./gate.js";

/** The parts of the SDK's tool call the gate reads (any tool set). */
export type GatedToolCall = { toolName: string; toolCallId: string; input: unknown };

export class CountersignAiSdkGate {
  private readonly gate: CallGate;
  private readonly gated = new Set<string>();

  constructor(client: Countersign, options: GateOptions = {}) {
    this.gate = new CallGate(client, options, "ai-sdk:");
  }

  /**
   * `execute` for the SDK's `tool({...})`: runs the call through Countersign once and returns the
   * tool's result. `name` is the Countersign tool (usually the tool's key in your tool set). If no
   * approval step ran first (no `toolApproval`), it waits for the reviewer here. A call that was
   * not approved, or ran and failed, throws — the model reads the message as the tool's error.
   */
  execute(name: string) {
    this.gated.add(name);
    return async (input: unknown, options: { toolCallId: string; abortSignal?: AbortSignal }): Promise<Record<string, unknown>> => {
      const args = argsObject(input);
      const verdict = await this.gate.verdict(options.toolCallId, name, args, options.abortSignal);
      if (!verdict.approved) throw new CountersignError(verdict.state, verdict.message);
      let outcome;
      try {
        outcome = await this.gate.run(options.toolCallId, name, args, options.abortSignal);
      } catch (error) {
        if (error instanceof CountersignError) throw new CountersignError(error.code, refusalMessage(error), error.status);
        throw error;
      }
      if (!outcome.ran) throw new CountersignError(outcome.state, outcome.message);
      const { execution } = outcome;
      if (execution.state !== "succeeded") throw new CountersignError(`execution_${execution.state}`, executionMessage(execution));
      return execution.result ?? { exit_code: execution.exitCode, stdout: execution.stdout, stderr: execution.stderr };
    };
  }

  /**
   * The `toolApproval` setting (the generic form): proposes each call of a gated tool; a call the
   * reviewer must decide becomes a `tool-approval-request`, one the policy denied goes back to the
   * model with the reason, one it allowed runs without a pause. Other tools are not affected.
   */
  readonly toolApproval = async ({ toolCall }: { toolCall: GatedToolCall }): Promise<ToolApprovalStatus> => {
    if (!this.gated.has(toolCall.toolName)) return undefined;
    try {
      const submission = await this.gate.submit(toolCall.toolCallId, toolCall.toolName, argsObject(toolCall.input));
      if (submission.state === "pending") return { type: "user-approval", reason: `Waiting for a reviewer in Countersign (action ${submission.id}).` };
      if (submission.state === "denied") return { type: "denied", reason: notRunMessage("denied", submission.reason) };
      return undefined;
    } catch (error) {
      if (isRefusal(error)) return { type: "denied", reason: refusalMessage(error) };
      throw error;
    }
  };

  /**
   * Waits for the reviewers' decisions on the result's approval requests (of gated tools) and
   * returns the `tool-approval-response` parts to send back in a `tool` message. A rejection,
   * expiry, cancellation or invalidation is a denial whose reason the model reads.
   */
  async approvalResponses<TOOLS extends ToolSet>(content: ReadonlyArray<ContentPart<TOOLS>>, options: { signal?: AbortSignal } = {}): Promise<ToolApprovalResponse[]> {
    const requests = content.flatMap((part) =>
      part.type === "tool-approval-request" && !part.isAutomatic && this.gated.has(part.toolCall.toolName) ? [part] : [],
    );
    return Promise.all(
      requests.map(async (request): Promise<ToolApprovalResponse> => {
        const { toolCallId, toolName, input } = request.toolCall;
        const verdict = await this.gate.verdict(toolCallId, toolName, argsObject(input), options.signal);
        return {
          type: "tool-approval-response",
          approvalId: request.approvalId,
          approved: verdict.approved,
          reason: verdict.approved ? `Approved in Countersign (action ${verdict.actionId}).` : verdict.message,
        };
      }),
    );
  }
}

export function countersignForAiSdk(client: Countersign, options: GateOptions = {}): CountersignAiSdkGate {
  return new CountersignAiSdkGate(client, options);
}
