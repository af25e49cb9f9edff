import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";
import type { CelSchema } from "./policy-cel";

const isObject = (v: JsonValue | undefined): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

const SCALARS: Record<string, string> = { string: "string", integer: "int", boolean: "bool" };

/**
 * The CEL type of one JSON Schema as a condition sees the value (toCelValue): `int`, `string`,
 * `bool`; `dyn` for what may arrive as more than one type (`number`, nullable, unions), so the check
 * never refuses what can hold at run time.
 */
function celType(schema: JsonValue | undefined, depth: number): string | CelSchema {
  if (!isObject(schema) || depth > 8) return "dyn";
  if (schema.const !== undefined) return typeof schema.const === "string" ? "string" : typeof schema.const === "boolean" ? "bool" : "dyn";
  if (Array.isArray(schema.enum)) return schema.enum.every((v) => typeof v === "string") ? "string" : "dyn";
  const type = schema.type;
  if (typeof type !== "string") return "dyn";
  if (type in SCALARS) return SCALARS[type];
  if (type === "array") {
    const item = celType(schema.items, depth + 1);
    return typeof item === "string" ? `list<${item}>` : "list<dyn>";
  }
  if (type === "object") {
    const fields = objectFields(schema, depth);
    if (fields) return fields;
    const values = celType(schema.additionalProperties, depth + 1);
    return `map<string, ${typeof values === "string" ? values : "dyn"}>`;
  }
  return "dyn";
}

function objectFields(schema: JsonObject, depth: number): CelSchema | null {
  if (!isObject(schema.properties)) return null;
  const entries = Object.entries(schema.properties);
  if (entries.length === 0) return null;
  return Object.fromEntries(entries.map(([key, child]) => [key, celType(child, depth + 1)]));
}

/**
 * A tool's argument JSON Schema as a CEL field schema for `args`, or null when it declares no
 * fields (then `args` stays an untyped map and its fields cannot be checked).
 */
export function celArgSchema(inputSchema: JsonObject): CelSchema | null {
  if (inputSchema.type !== undefined && inputSchema.type !== "object") return null;
  return objectFields(inputSchema, 0);
}
