import { z } from "zod";
import { parseToolArgs } from "@/lib/tools/parse-tool-args";
import type { JsonObject } from "@/lib/canonical/json-value";
import { InvalidPayloadError } from "@/lib/canonical/invalid-payload-error";
import { parseStrictJson } from "@/lib/canonical/parse-strict-json";
import { TOOLS } from "@/lib/tools/registry";
import type { ToolDefinition } from "@/lib/tools/tool";
import type { ChatTool, ModelToolCall } from "@/lib/agent/model";

type JsonSchema = Record<string, unknown>;

/** `schema`, also taking null (read as "absent": lib/tools/parse-tool-args.ts). */
function orNull(schema: JsonSchema): JsonSchema {
  const { type, enum: values, const: only, ...rest } = schema;
  if (typeof type === "string") {
    const nullable: JsonSchema = { ...rest, type: [type, "null"] };
    if (Array.isArray(values)) nullable.enum = [...(values as unknown[]), null];
    else if (only !== undefined) nullable.enum = [only, null];
    return nullable;
  }
  if (Array.isArray(type)) return type.includes("null") ? schema : { ...schema, type: [...(type as unknown[]), "null"] };
  const { description, default: fallback, ...inner } = schema;
  return { ...(description === undefined ? {} : { description }), ...(fallback === undefined ? {} : { default: fallback }), anyOf: [inner, { type: "null" }] };
}

/** Marks every optional property of an object schema (and of objects inside it) as taking null. */
function nullableOptionals(schema: JsonSchema, strict: boolean): JsonSchema {
  if (schema.type === "array" && typeof schema.items === "object" && schema.items !== null) {
    return { ...schema, items: nullableOptionals(schema.items as JsonSchema, strict) };
  }
  if (schema.type !== "object" || typeof schema.properties !== "object" || schema.properties === null) return schema;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const properties = Object.fromEntries(
    Object.entries(schema.properties as Record<string, JsonSchema>).map(([key, property]) => {
      const inner = nullableOptionals(property, strict);
      return [key, required.has(key) ? inner : orNull(inner)];
    }),
  );
  return { ...schema, properties, ...(strict ? { required: Object.keys(properties) } : {}) };
}

/**
 * A tool's arguments as JSON Schema (2020-12), from its zod schema (one source of truth): what a
 * caller must send (defaults stay optional), closed to unknown keys, and with every optional
 * argument also taking `null`, read as "absent". `strict`: in the form OpenAI's strict function
 * calling wants — every property listed as required, the optional ones nullable.
 */
export function toolArgsJsonSchema(tool: Pick<ToolDefinition, "args">, options: { strict?: boolean } = {}): JsonSchema {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.args, { io: "input", unrepresentable: "any" }) as JsonSchema;
  return nullableOptionals({ ...schema, type: "object", additionalProperties: false }, options.strict === true);
}

/** The tool list the model sees, generated from each tool's own zod schema (one source of truth). */
export function toolSpecsForModel(tools: readonly ToolDefinition[] = TOOLS): ChatTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: toolArgsJsonSchema(tool) },
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
