import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaType } from "@modelcontextprotocol/sdk/validation";
import type { JsonObject } from "@/lib/canonical/json-value";

export type ArgumentCheck = (args: unknown) => { valid: true } | { valid: false; message: string };

// Compiled once per pinned definition. Each schema gets a validator (and so an Ajv instance) of
// its own: one server's `$id` can never stand in for another's schema, and a dropped entry takes
// its compiled code with it.
const compiled = new Map<string, ArgumentCheck>();
const MAX_COMPILED = 500;

/**
 * The check of a tool's arguments against its pinned JSON Schema, exactly as the schema says
 * (unknown keys are refused where it says additionalProperties: false, and allowed where it does
 * not), with the SDK's Ajv (formats checked). Nothing is coerced or filled in: what is hashed and
 * forwarded is what the agent sent. Throws if the schema does not compile.
 */
export function argumentCheck(definitionHash: string, schema: JsonObject): ArgumentCheck {
  const cached = compiled.get(definitionHash);
  if (cached) {
    // Most recently used last, so the oldest is the one dropped.
    compiled.delete(definitionHash);
    compiled.set(definitionHash, cached);
    return cached;
  }
  const validate = new AjvJsonSchemaValidator().getValidator<JsonObject>(schema as JsonSchemaType);
  const check: ArgumentCheck = (args) => {
    const result = validate(args);
    return result.valid ? { valid: true } : { valid: false, message: result.errorMessage.replace(/\bdata\b/g, "arguments") };
  };
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
  compiled.set(definitionHash, check);
  return check;
}

/** Why a schema cannot be used to check arguments, or null when it can. */
export function schemaProblem(schema: JsonObject): string | null {
  try {
    new AjvJsonSchemaValidator().getValidator(schema as JsonSchemaType);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message.split("\n")[0].slice(0, 300) : "it does not compile";
  }
}
