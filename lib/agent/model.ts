import type OpenAI from "openai";

export type ChatMessage = OpenAI.Chat.ChatCompletionMessageParam;
export type ChatTool = OpenAI.Chat.ChatCompletionTool;

/** One tool call as the model wrote it: the arguments are raw text until `parseToolCall` accepts them. */
export type ModelToolCall = { id: string; name: string; argumentsText: string };

/** What one model turn produced: plain content, tool calls, or both. */
export type ModelTurn = {
  /** "offline" for the built-in planner, else the configured provider's name. */
  provider: string;
  model: string;
  content: string | null;
  toolCalls: ModelToolCall[];
};

export type ModelInput = { messages: ChatMessage[]; tools: ChatTool[]; signal?: AbortSignal };

/** What the run loop calls. Implemented by the provider chain and by the offline planner. */
export type ChatModel = {
  /** "offline", or the configured provider names joined with "," in failover order. */
  id: string;
  complete(input: ModelInput): Promise<ModelTurn>;
};

/** The assistant message to append to the conversation after a turn (the protocol wants it verbatim). */
export function assistantMessageFromTurn(turn: ModelTurn): OpenAI.Chat.ChatCompletionAssistantMessageParam {
  const message: OpenAI.Chat.ChatCompletionAssistantMessageParam = { role: "assistant", content: turn.content };
  if (turn.toolCalls.length > 0) {
    message.tool_calls = turn.toolCalls.map((call) => ({
      id: call.id,
      type: "function" as const,
      function: { name: call.name, arguments: call.argumentsText },
    }));
  }
  return message;
}
