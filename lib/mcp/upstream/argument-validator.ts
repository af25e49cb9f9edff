import { Ajv } from "ajv";
import type { RegExpEngine, RegExpLike } from "ajv/dist/types";
import addFormats from "ajv-formats";
import { RE2JS } from "re2js";
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
 * not), with the SDK's Ajv settings (formats checked) and linear-time patterns. Nothing is coerced
 * or filled in: what is hashed and forwarded is what the agent sent. Throws if the schema does
 * not compile. `schema` is read only when this definition is not compiled yet. Its cost grows with
 * the arguments, so it runs on the compute pool (checkUpstreamArgs in compute-tasks.ts).
 */
export function argumentCheck(definitionHash: string, schema: () => JsonObject): ArgumentCheck {
  const cached = compiled.get(definitionHash);
  if (cached) {
    // Most recently used last, so the oldest is the one dropped.
    compiled.delete(definitionHash);
    compiled.set(definitionHash, cached);
    return cached;
  }
  const validate = schemaValidator(schema());
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
    schemaValidator(schema);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message.split("\n")[0].slice(0, 300) : "it does not compile";
  }
}

/**
 * The one construction both argumentCheck and schemaProblem use, so a schema that passes review is
 * exactly one that can be checked. Throws if the schema does not compile.
 */
function schemaValidator(schema: JsonObject) {
  return new AjvJsonSchemaValidator(upstreamAjv()).getValidator<JsonObject>(schema as JsonSchemaType);
}

/**
 * The MCP SDK's default Ajv (createDefaultAjvInstance in its ajv-provider, replicated option for
 * option), except that `pattern` and `patternProperties` run on RE2 instead of `new RegExp`.
 * An upstream server's schema is untrusted: with a backtracking engine a pattern like `^(a+)+$`
 * and a few dozen characters of argument hold the event loop for minutes.
 */
function upstreamAjv(): Ajv {
  const ajv = new Ajv({
    strict: false,
    validateFormats: true,
    validateSchema: false,
    allErrors: true,
    code: { regExp: linearRegExp },
  });
  addFormats(ajv);
  return ajv;
}

// ECMAScript flags, as Ajv passes them ("u" unless unicodeRegExp is off), to RE2JS's. RE2JS always
// matches by code point, which is what "u" asks for; "g" and "y" mean nothing to a one-off test.
const RE2_FLAGS: Record<string, number> = {
  u: 0,
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
};

/**
 * Ajv's `code.regExp` engine: compiles a schema's ECMA-262 pattern for RE2JS, whose matching is
 * linear in the input whatever the pattern. A pattern must be valid ECMAScript (as the schema's
 * dialect requires) and expressible in RE2: lookarounds and backreferences are not, and make the
 * schema not compile. Known differences on patterns both accept: RE2's `\s` is ASCII whitespace
 * only, and its `.` also matches `\r`, U+2028 and U+2029.
 */
const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string): RegExpLike => {
    const shown = JSON.stringify(pattern.length > 100 ? `${pattern.slice(0, 100)}…` : pattern);
    try {
      // Compiling (never running) the pattern natively checks its ECMAScript syntax.
      new RegExp(pattern, flags);
    } catch (error) {
      throw new Error(`pattern ${shown} is not a valid regular expression: ${messageOf(error)}`);
    }
    const unsupported = unsupportedSyntax(pattern);
    if (unsupported) {
      throw new Error(`pattern ${shown} uses ${unsupported}, which the linear-time matcher (RE2) does not support`);
    }
    let re2Flags = 0;
    for (const flag of flags) {
      if (!(flag in RE2_FLAGS)) throw new Error(`pattern ${shown}: the regular expression flag "${flag}" is not supported`);
      re2Flags |= RE2_FLAGS[flag];
    }
    let re: RE2JS;
    try {
      re = RE2JS.compile(RE2JS.translateRegExp(pattern), re2Flags);
    } catch (error) {
      throw new Error(`pattern ${shown} cannot be run by the linear-time matcher (RE2): ${messageOf(error)}`);
    }
    // Ajv keys its compiled patterns by toString().
    const source = `/${pattern}/${flags}`;
    const matcher: RegExpLike & { toString(): string } = { test: (input) => re.test(input), toString: () => source };
    return matcher;
  },
  // Only read when Ajv generates standalone code, which it never does here.
  { code: 'require("re2js").RE2JS' },
);

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The lookaround or backreference in a (syntactically valid) ECMAScript pattern, if any. They are
 * caught here rather than left to RE2JS, whose translation of ECMAScript syntax drops the
 * backslash of `\k<name>`, `\8` and `\9` (turning a backreference into literal text), and whose
 * message for a lookbehind is about named groups.
 */
function unsupportedSyntax(pattern: string): string | null {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "\\") {
      const next = pattern[i + 1] ?? "";
      if (!inClass && (next === "k" || (next >= "1" && next <= "9"))) return `a backreference (\\${next})`;
      i++;
    } else if (inClass) {
      if (ch === "]") inClass = false;
    } else if (ch === "[") {
      inClass = true;
    } else if (ch === "(" && pattern[i + 1] === "?") {
      const after = pattern.slice(i + 2, i + 4);
      if (after.startsWith("=") || after.startsWith("!")) return "a lookahead";
      if (after === "<=" || after === "<!") return "a lookbehind";
    }
  }
  return null;
}
