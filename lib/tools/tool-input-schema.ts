import { z } from "zod";
import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";
import type { ToolDefinition } from "@/lib/tools/tool";

/**
 * The JSON Schema of a tool's arguments as models and MCP clients get it: an upstream tool's pinned
 * inputSchema, or one generated from the zod `args` (closed, defaults optional, every optional
 * argument also taking `null` as absent). `strict`: OpenAI's form, every property required and
 * the optional ones nullable.
 */
export function toolInputSchema(tool: Pick<ToolDefinition, "args" | "inputSchema">, options: { strict?: boolean } = {}): JsonObject {
  if (tool.inputSchema) {
    const { $schema: _ignored, ...schema } = tool.inputSchema;
    return schema;
  }
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.args, { io: "input", unrepresentable: "any" }) as JsonObject;
  return nullableOptionals({ ...schema, type: "object", additionalProperties: false }, options.strict === true);
}

/** `schema`, also taking null. */
function orNull(schema: JsonObject): JsonObject {
  const { type, enum: values, const: only, ...rest } = schema;
  if (typeof type === "string") {
    const nullable: JsonObject = { ...rest, type: [type, "null"] };
    if (Array.isArray(values)) nullable.enum = [...values, null];
    else if (only !== undefined) nullable.enum = [only, null];
    return nullable;
  }
  if (Array.isArray(type)) return type.includes("null") ? schema : { ...schema, type: [...type, "null"] };
  const { description, default: fallback, ...inner } = schema;
  return { ...(description === undefined ? {} : { description }), ...(fallback === undefined ? {} : { default: fallback }), anyOf: [inner, { type: "null" }] };
}

const isObject = (value: JsonValue | undefined): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** Marks every optional property of an object schema (and of objects inside it) as taking null. */
function nullableOptionals(schema: JsonObject, strict: boolean): JsonObject {
  if (schema.type === "array" && isObject(schema.items)) return { ...schema, items: nullableOptionals(schema.items, strict) };
  if (schema.type !== "object" || !isObject(schema.properties)) return schema;
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === "string") : []);
  const properties: JsonObject = Object.fromEntries(
    Object.entries(schema.properties).map(([key, property]) => {
      const inner = isObject(property) ? nullableOptionals(property, strict) : {};
      return [key, required.has(key) ? inner : orNull(inner)];
    }),
  );
  return { ...schema, properties, ...(strict ? { required: Object.keys(properties) } : {}) };
}
