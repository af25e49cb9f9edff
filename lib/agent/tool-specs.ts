import { parseToolArgs } from "@/lib/tools/parse-tool-args";
import type { JsonObject } from "@/lib/canonical/json-value";
import { InvalidPayloadError } from "@/lib/canonical/invalid-payload-error";
import { parseStrictJson } from "@/lib/canonical/parse-strict-json";
import { TOOLS } from "@/lib/tools/registry";
import type { ToolDefinition } from "@/lib/tools/tool";
import { toolInputSchema } from "@/lib/tools/tool-input-schema";
import type { ChatTool, ModelToolCall } from "@/lib/agent/model";

/** The tool list the model sees, from each tool's own schema (one source of truth). */
export function toolSpecsForModel(tools: readonly ToolDefinition[] = TOOLS): ChatTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: toolInputSchema(tool) },
  }));
}

export type ParsedToolCall =
  | { ok: true; tool: ToolDefinition; args: JsonObject }
  | { ok: false; /** Written for the model: goes back to it as the tool result; nothing was executed. */ error: string };

const MAX_ERROR_ISSUES = 8;

/**
 * Accepts a model's tool call only if the tool exists, the arguments are strict JSON (no duplicate
 * keys, lone surrogates, unsafe numbers, __proto__ …) and they pass the tool's own schema. Anything
 * else becomes an error message for the model; the call is never executed.
 */
export function parseToolCall(call: Pick<ModelToolCall, "name" | "argumentsText">, tools: readonly ToolDefinition[] = TOOLS): ParsedToolCall {
  const tool = tools.find((t) => t.name === call.name);
  if (!tool) {
    return {
      ok: false,
      error: `There is no tool named ${JSON.stringify(excerpt(call.name, 64))}; the call was not executed. Available tools: ${tools.map((t) => t.name).join(", ")}.`,
    };
  }
  // Some models send "" for a call without arguments.
  const text = call.argumentsText.trim() === "" ? "{}" : call.argumentsText;
  let value: unknown;
  try {
    value = parseStrictJson(text);
  } catch (error) {
    if (!(error instanceof InvalidPayloadError)) throw error;
    return { ok: false, error: `The arguments for ${tool.name} are not valid JSON: ${error.message} The call was not executed; send the arguments again as one JSON object.` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, error: `The arguments for ${tool.name} must be a JSON object; the call was not executed.` };
  }
  const parsed = parseToolArgs(tool, value);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, MAX_ERROR_ISSUES).map((issue) => {
      const where = issue.path.length > 0 ? issue.path.map(String).join(".") : "(arguments)";
      return `${where}: ${issue.message}`;
    });
    return {
      ok: false,
      error: `The arguments for ${tool.name} do not match its schema; the call was not executed. ${issues.join("; ")}.`,
    };
  }
  return { ok: true, tool, args: parsed.data };
}

function excerpt(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
