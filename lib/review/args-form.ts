import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";
import { isMinorUnitsField } from "@/lib/tools/money";

/**
 * The edit form's fields, generated from a tool's argument JSON Schema: one per top-level property
 * the form can hold (text, money, number, yes/no, one of a list). Anything nested stays in the JSON
 * view. The JSON is what is submitted; the form only rewrites it, and the server validates it.
 */

export type ArgsFormField = {
  name: string;
  label: string;
  description: string | null;
  required: boolean;
  kind: "text" | "textarea" | "money" | "integer" | "number" | "boolean" | "enum" | "json";
  /** For "enum": the values offered. */
  options: string[];
};

const isObject = (value: JsonValue | undefined): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** "invoice_number" → "Invoice number"; a money field drops its "_minor". */
function labelOf(name: string): string {
  const words = name.replace(/_minor$/, "").replaceAll("_", " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The schema of a property without the `null` that marks it optional (type: [t, "null"] or anyOf). */
function withoutNull(schema: JsonObject): JsonObject {
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== "null");
    const values = Array.isArray(schema.enum) ? schema.enum.filter((v) => v !== null) : undefined;
    return { ...schema, type: types.length === 1 ? types[0] : types, ...(values ? { enum: values } : {}) };
  }
  if (Array.isArray(schema.anyOf)) {
    const branches = schema.anyOf.filter((b) => !(isObject(b) && b.type === "null"));
    if (branches.length === 1 && isObject(branches[0])) {
      const { anyOf: _branches, ...rest } = schema;
      return { ...rest, ...branches[0] };
    }
  }
  return schema;
}

const LONG_TEXT = /^(?:body|text|content|message|markdown|html|code|query|sql|script)$/i;

function kindOf(name: string, schema: JsonObject): Pick<ArgsFormField, "kind" | "options"> {
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.every((v) => typeof v === "string")) {
    return { kind: "enum", options: schema.enum as string[] };
  }
  if (typeof schema.const === "string") return { kind: "enum", options: [schema.const] };
  switch (schema.type) {
    case "string":
      return { kind: LONG_TEXT.test(name) || (typeof schema.maxLength === "number" && schema.maxLength > 1000) ? "textarea" : "text", options: [] };
    case "integer":
      return { kind: isMinorUnitsField(name) ? "money" : "integer", options: [] };
    case "number":
      return { kind: "number", options: [] };
    case "boolean":
      return { kind: "boolean", options: [] };
    default:
      return { kind: "json", options: [] };
  }
}

/** The fields of an object schema's top-level properties, in the schema's order; [] if it has none. */
export function argsFormFields(schema: JsonValue | null | undefined): ArgsFormField[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(schema.properties).map(([name, raw]) => {
    const property = withoutNull(isObject(raw) ? raw : {});
    return {
      name,
      label: labelOf(name),
      description: typeof property.description === "string" ? property.description : null,
      required: required.has(name),
      ...kindOf(name, property),
    };
  });
}

/** Integer minor units as the form shows them: 45000 → "450.00", -5 → "-0.05" (no thousands separators). */
export function minorToMajorText(minor: number): string {
  const sign = minor < 0 ? "-" : "";
  const abs = Math.abs(minor);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

export type MajorParse = { ok: true; minor: number } | { ok: false; message: string };

/**
 * An amount typed in major units as integer minor units: "450" / "450.0" / "450.00" → 45000,
 * "450.5" → 45050, "1,000.00" → 100000 (commas only as thousands separators). Refuses negatives,
 * more than two decimals and anything else, with a message saying why.
 */
export function majorTextToMinor(text: string): MajorParse {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: false, message: "Enter an amount, like 450.00." };
  if (trimmed.startsWith("-")) return { ok: false, message: "The amount cannot be negative." };
  const match = /^(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d*))?$/.exec(trimmed);
  if (!match) return { ok: false, message: "Enter digits with an optional decimal point, like 450.00." };
  const decimals = match[2] ?? "";
  if (decimals.length > 2) return { ok: false, message: "At most two decimals (cents)." };
  const minor = Number(match[1].replaceAll(",", "")) * 100 + Number(decimals.padEnd(2, "0"));
  if (!Number.isSafeInteger(minor)) return { ok: false, message: "The amount is too large." };
  return { ok: true, minor };
}

/**
 * What is wrong with a money amount as typed, or null: an empty optional amount is left out, an
 * empty required one is refused (the JSON still holds the last valid amount, which must not be
 * submitted unseen).
 */
export function moneyDraftProblem(draft: string | undefined, required: boolean): string | null {
  if (draft === undefined || (draft.trim() === "" && !required)) return null;
  const parsed = majorTextToMinor(draft);
  return parsed.ok ? null : parsed.message;
}

export type ArgsParse = { ok: true; args: JsonObject } | { ok: false; message: string };

/** The JSON text as an arguments object, or why the form cannot show it. */
export function parseArgsText(text: string): ArgsParse {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `The JSON does not parse (${error instanceof Error ? error.message : "invalid"}); fix it below to use the form.` };
  }
  if (!isObject(value as JsonValue)) return { ok: false, message: "The arguments must be a JSON object; fix it below to use the form." };
  return { ok: true, args: value as JsonObject };
}

/** The arguments with `name` set to `value` (removed when undefined), as the JSON view shows them. */
export function withArg(args: JsonObject, name: string, value: JsonValue | undefined): string {
  const next: JsonObject = { ...args };
  if (value === undefined) delete next[name];
  else next[name] = value;
  return JSON.stringify(next, null, 2);
}
