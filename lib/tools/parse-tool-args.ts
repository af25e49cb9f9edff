import { z } from "zod";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { ToolDefinition } from "@/lib/tools/tool";

/**
 * Parses a tool's arguments with its schema, reading `null` for an optional argument that does not
 * take null as absent (OpenAI's strict function calling sends every field), so `{x: null}` and
 * `{}` are one payload hash on every path. Other nulls are left to the schema.
 */
export function parseToolArgs(tool: Pick<ToolDefinition, "args">, raw: unknown): z.ZodSafeParseResult<JsonObject> {
  return tool.args.safeParse(withoutAbsentNulls(tool.args, raw));
}

/**
 * parseToolArgs, then the tool's own costly check (`checkArgs` on the compute pool; `too_complex`
 * past its budget): what every revision's arguments and a policy test's sample pass. A model's
 * tool call is only parsed (tool-specs.ts); its proposal checks it in full.
 */
export async function checkToolArgs(tool: Pick<ToolDefinition, "args" | "checkArgs">, raw: unknown): Promise<z.ZodSafeParseResult<JsonObject>> {
  const parsed = parseToolArgs(tool, raw);
  if (!parsed.success || !tool.checkArgs) return parsed;
  const problem = await tool.checkArgs(parsed.data);
  if (problem === null) return parsed;
  // The refusal as zod states one, so every caller reads (and describes) it as it reads the schema's.
  return z.custom<JsonObject>(() => false, { message: problem }).safeParse(parsed.data);
}

function objectOf(schema: z.ZodType): z.ZodObject | null {
  let current: z.ZodType = schema;
  // Optional, nullable and defaulted objects are still objects inside.
  for (;;) {
    if (current instanceof z.ZodObject) return current;
    if (current instanceof z.ZodOptional || current instanceof z.ZodNullable || current instanceof z.ZodDefault) {
      current = current.unwrap() as z.ZodType;
      continue;
    }
    return null;
  }
}

/** Whether `field` may be left out and does not itself take null. */
function nullMeansAbsent(field: z.ZodType): boolean {
  return field.safeParse(undefined).success && !field.safeParse(null).success;
}

function withoutAbsentNulls(schema: z.ZodType, value: unknown): unknown {
  if (schema instanceof z.ZodArray && Array.isArray(value)) {
    return value.map((item: unknown) => withoutAbsentNulls(schema.element as z.ZodType, item));
  }
  const object = objectOf(schema);
  if (!object || typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const shape = object.shape as Record<string, z.ZodType>;
  // fromEntries defines every key as data, whatever it is named (no prototype setter runs).
  return Object.fromEntries(
    Object.entries(value).flatMap(([key, item]: [string, unknown]) => {
      const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
      // A key the schema does not know is left for it to refuse (strict objects), with its own message.
      if (!field) return [[key, item]];
      if (item === null && nullMeansAbsent(field)) return [];
      return [[key, withoutAbsentNulls(field, item)]];
    }),
  );
}
