import { hasLoneSurrogate, hasNul, NUL_MESSAGE } from "./text-checks";
import { InvalidPayloadError } from "./invalid-payload-error";
import { childPath, displayPath } from "./json-path";
import { FORBIDDEN_KEYS, MAX_SAFE_MAGNITUDE, type JsonObject, type JsonValue } from "./json-value";

export type StrictJsonOptions = {
  /** Largest accepted payload in UTF-8 bytes. Default 256 KiB. */
  maxBytes?: number;
  /** Deepest accepted nesting of objects/arrays (the top-level container is depth 1). Default 32. */
  maxDepth?: number;
};

export const DEFAULT_MAX_BYTES = 256 * 1024;
export const DEFAULT_MAX_DEPTH = 32;

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/**
 * Parses JSON, refusing what `JSON.parse` accepts or mangles: duplicate keys (a reviewer and the
 * executor could read different values), lone surrogates, numbers that overflow or underflow or
 * exceed 2^53−1 in magnitude, prototype keys, a BOM, trailing data, and payloads over `maxBytes`
 * or deeper than `maxDepth`.
 */
export function parseStrictJson(text: string, opts: StrictJsonOptions = {}): JsonValue {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxDepth = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
  // A UTF-16 code unit is at least one UTF-8 byte, so the cheap check comes first.
  if (text.length > maxBytes || Buffer.byteLength(text, "utf8") > maxBytes) {
    throw new InvalidPayloadError("payload_too_large", `The payload is larger than ${maxBytes} bytes.`);
  }
  return new Parser(text, maxDepth).parseDocument();
}

/**
 * The same, for a request body as bytes: the size is checked before decoding, and
 * invalid UTF-8 is refused rather than replaced with U+FFFD.
 */
export function parseStrictJsonBytes(bytes: Uint8Array, opts: StrictJsonOptions = {}): JsonValue {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  if (bytes.byteLength > maxBytes) {
    throw new InvalidPayloadError("payload_too_large", `The payload is larger than ${maxBytes} bytes.`);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new InvalidPayloadError("invalid_utf8", "The payload is not valid UTF-8.");
  }
  return parseStrictJson(text, opts);
}

class Parser {
  private pos = 0;

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  parseDocument(): JsonValue {
    this.skipWhitespace();
    const value = this.parseValue("", 0);
    this.skipWhitespace();
    if (this.pos < this.text.length) {
      throw new InvalidPayloadError(
        "trailing_data",
        `Unexpected data after the JSON value at character ${this.pos}.`,
      );
    }
    return value;
  }

  private parseValue(path: string, depth: number): JsonValue {
    const ch = this.text[this.pos];
    switch (ch) {
      case "{":
        return this.parseObject(path, depth + 1);
      case "[":
        return this.parseArray(path, depth + 1);
      case '"':
        return this.parseString(path);
      case "t":
        return this.parseLiteral("true", true);
      case "f":
        return this.parseLiteral("false", false);
      case "n":
        return this.parseLiteral("null", null);
      default:
        if (ch === "-" || (ch !== undefined && ch >= "0" && ch <= "9")) return this.parseNumber(path);
        throw this.syntaxError(ch === undefined ? "Unexpected end of input" : "Unexpected character", path);
    }
  }

  private parseObject(path: string, depth: number): JsonObject {
    this.checkDepth(path, depth);
    this.pos++; // {
    const obj: JsonObject = {};
    if (this.closesAtOnce("}")) return obj;
    for (;;) {
      if (this.text[this.pos] !== '"') throw this.syntaxError("Expected a quoted key", path);
      const key = this.parseString(path);
      const keyPath = childPath(path, key);
      if (FORBIDDEN_KEYS.has(key)) {
        throw new InvalidPayloadError("forbidden_key", `The key "${key}" is not allowed.`, keyPath);
      }
      if (Object.hasOwn(obj, key)) {
        throw new InvalidPayloadError("duplicate_key", `The key "${excerpt(key)}" appears more than once.`, keyPath);
      }
      this.skipWhitespace();
      if (this.text[this.pos] !== ":") throw this.syntaxError("Expected ':' after a key", keyPath);
      this.pos++;
      this.skipWhitespace();
      obj[key] = this.parseValue(keyPath, depth);
      if (this.closesAfterItem("}", path)) return obj;
    }
  }

  private parseArray(path: string, depth: number): JsonValue[] {
    this.checkDepth(path, depth);
    this.pos++; // [
    const arr: JsonValue[] = [];
    if (this.closesAtOnce("]")) return arr;
    for (;;) {
      arr.push(this.parseValue(childPath(path, arr.length), depth));
      if (this.closesAfterItem("]", path)) return arr;
    }
  }

  /** Just inside `{` or `[`: whether the container is empty (its `close` is consumed then). */
  private closesAtOnce(close: "}" | "]"): boolean {
    this.skipWhitespace();
    if (this.text[this.pos] !== close) return false;
    this.pos++;
    return true;
  }

  /** After a member or element: true at `close`, false after a comma (both consumed); else a syntax error. */
  private closesAfterItem(close: "}" | "]", path: string): boolean {
    this.skipWhitespace();
    const next = this.text[this.pos];
    if (next === close) {
      this.pos++;
      return true;
    }
    if (next !== ",") throw this.syntaxError(`Expected ',' or '${close}'`, path);
    this.pos++;
    this.skipWhitespace();
    return false;
  }

  private parseString(path: string): string {
    const start = this.pos;
    this.pos++; // opening quote
    let out = "";
    let chunkStart = this.pos;
    for (;;) {
      if (this.pos >= this.text.length) {
        this.pos = start;
        throw this.syntaxError("Unterminated string", path);
      }
      const code = this.text.charCodeAt(this.pos);
      if (code === 0x22) {
        out += this.text.slice(chunkStart, this.pos);
        this.pos++;
        break;
      }
      if (code < 0x20) throw this.syntaxError("Unescaped control character in a string", path);
      if (code !== 0x5c) {
        this.pos++;
        continue;
      }
      out += this.text.slice(chunkStart, this.pos);
      const esc = this.text[this.pos + 1];
      if (esc === "u") {
        const hex = this.text.slice(this.pos + 2, this.pos + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw this.syntaxError("Invalid \\u escape", path);
        out += String.fromCharCode(parseInt(hex, 16));
        this.pos += 6;
      } else if (esc !== undefined && Object.hasOwn(ESCAPES, esc)) {
        out += ESCAPES[esc];
        this.pos += 2;
      } else {
        throw this.syntaxError("Invalid escape sequence", path);
      }
      chunkStart = this.pos;
    }
    // Checked on the decoded string so escaped, raw and mixed halves are all judged alike.
    if (hasLoneSurrogate(out)) {
      throw new InvalidPayloadError(
        "lone_surrogate",
        "A string contains an unpaired UTF-16 surrogate, which is not valid Unicode text.",
        displayPath(path),
      );
    }
    if (hasNul(out)) throw new InvalidPayloadError("nul_character", NUL_MESSAGE, displayPath(path));
    return out;
  }

  private parseNumber(path: string): number {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (!match) throw this.syntaxError("Invalid number", path);
    const literal = match[0];
    this.pos += literal.length;
    const value = Number(literal);
    if (!Number.isFinite(value)) {
      throw new InvalidPayloadError("non_finite_number", `The number ${excerpt(literal)} is too large.`, displayPath(path));
    }
    if (Math.abs(value) > MAX_SAFE_MAGNITUDE) {
      throw new InvalidPayloadError(
        "unsafe_integer",
        `The number ${excerpt(literal)} is beyond ±(2^53−1) and cannot be represented exactly; send it as a string.`,
        displayPath(path),
      );
    }
    if (value === 0 && /[1-9]/.test(literal.split(/[eE]/)[0])) {
      throw new InvalidPayloadError(
        "number_underflow",
        `The number ${excerpt(literal)} is too small to represent and would silently become 0.`,
        displayPath(path),
      );
    }
    return value;
  }

  private parseLiteral<T extends JsonValue>(word: string, value: T): T {
    if (this.text.startsWith(word, this.pos)) {
      this.pos += word.length;
      return value;
    }
    throw this.syntaxError("Unexpected token", "");
  }

  private checkDepth(path: string, depth: number): void {
    if (depth > this.maxDepth) {
      throw new InvalidPayloadError("too_deep", `The payload is nested deeper than ${this.maxDepth} levels.`, displayPath(path));
    }
  }

  private skipWhitespace(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.pos++;
      else return;
    }
  }

  private syntaxError(what: string, path: string): InvalidPayloadError {
    return new InvalidPayloadError("syntax_error", `Malformed JSON: ${what} at character ${this.pos}.`, displayPath(path));
  }
}

function excerpt(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}
