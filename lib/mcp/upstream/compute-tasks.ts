// Pure functions of plain data whose cost grows with the input: they run on the compute pool
// (lib/compute/compute-pool.ts) through the tasks declared in compute.ts beside this file.
import type { JsonObject } from "@/lib/canonical/json-value";
import { argumentCheck } from "@/lib/mcp/upstream/argument-validator";

/** An upstream MCP tool's arguments and its pinned input schema (as JSON text: parsed only when this thread has not compiled it yet). */
export type UpstreamArgsInput = { definitionHash: string; schemaJson: string; args: JsonObject };

/**
 * Checks arguments against an upstream tool's pinned JSON Schema (argument-validator.ts): a schema
 * may ask for formats, uniqueItems over objects and patterns whose cost grows with the arguments
 * (uniqueItems compares every pair). Null when they fit, else why not. Each thread compiles a
 * definition once.
 */
export function checkUpstreamArgs(input: UpstreamArgsInput): string | null {
  let result: ReturnType<ReturnType<typeof argumentCheck>>;
  try {
    result = argumentCheck(input.definitionHash, () => JSON.parse(input.schemaJson) as JsonObject)(input.args);
  } catch {
    return "the approved input schema cannot be compiled, so no arguments can be checked; an admin must review the tool";
  }
  // Ajv lists every failing item (allErrors): a refusal says what is wrong, not all of it.
  return result.valid ? null : result.message.length > 2_000 ? `${result.message.slice(0, 2_000)}…` : result.message;
}
