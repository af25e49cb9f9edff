import { describe, expect, it } from "vitest";
import { InvalidPayloadError, type InvalidPayloadCode } from "./invalid-payload-error";
import { parseStrictJson, parseStrictJsonBytes } from "./parse-strict-json";

function refusal(fn: () => unknown): InvalidPayloadError {
  try {
    fn();
  } catch (e) {
    if (e instanceof InvalidPayloadError) return e;
    throw e;
  }
  throw new Error("expected an InvalidPayloadError, but nothing was thrown");
}

function expectRefused(text: string, code: InvalidPayloadCode, path?: string) {
  const err = refusal(() => parseStrictJson(text));
  expect(err.code).toBe(code);
  expect(err.path).toBe(path);
  expect(err.message.length).toBeGreaterThan(10);
  return err;
}

describe("parseStrictJson — accepts ordinary JSON", () => {
  it("parses values like JSON.parse", () => {
    const text = ' {"a": [1, -2.5, 3e2, true, false, null, "x\\n\\u00e9\\ud83d\\ude00"], "b": {}, "c": []}\n';
    expect(parseStrictJson(text)).toEqual(JSON.parse(text));
    expect(parseStrictJson("0")).toBe(0);
    expect(parseStrictJson('"\u00e9"')).toBe("\u00e9");
    expect(parseStrictJson("9007199254740991")).toBe(9007199254740991);
    expect(parseStrictJson("-9007199254740991")).toBe(-9007199254740991);
    expect(parseStrictJson("0.1")).toBe(0.1);
    expect(parseStrictJson("-0")).toBe(-0);
  });

  it("accepts a raw (unescaped) surrogate pair and mixed raw/escaped pairs", () => {
    expect(parseStrictJson('"\ud83d\ude00"')).toBe("\ud83d\ude00");
    expect(parseStrictJson('"\ud83d\\ude00"')).toBe("\ud83d\ude00");
  });

  it("accepts exactly maxDepth levels", () => {
    expect(parseStrictJson("[".repeat(32) + "]".repeat(32))).toBeDefined();
    expect(parseStrictJson('{"a":{"b":1}}', { maxDepth: 2 })).toEqual({ a: { b: 1 } });
  });
});

describe("parseStrictJson — refusals", () => {
  it("duplicate keys at the top and at depth", () => {
    expectRefused('{"a":1,"a":2}', "duplicate_key", "a");
    expectRefused('{"args":{"items":[{"id":1},{"id":2,"id":3}]}}', "duplicate_key", "args.items[1].id");
    // Same key after escape decoding is still a duplicate.
    expectRefused('{"amount":1,"\\u0061mount":2}', "duplicate_key", "amount");
  });

  it("lone surrogates, escaped or raw", () => {
    expectRefused('"\\ud800"', "lone_surrogate");
    expectRefused('{"k":"a\\udc00b"}', "lone_surrogate", "k");
    expectRefused('{"k":"\\ud83d\\u0041"}', "lone_surrogate", "k");
    expectRefused('["\ud800"]', "lone_surrogate", "[0]");
    expectRefused('{"\\udfff":1}', "lone_surrogate");
    expectRefused('{"k":"a\\u0000b"}', "nul_character", "k");
    expectRefused('["\\u0000"]', "nul_character", "[0]");
  });

  it("non-finite and underflowing numbers", () => {
    expectRefused("1e400", "non_finite_number");
    expectRefused('{"x":[-1e999]}', "non_finite_number", "x[0]");
    expectRefused("1e-400", "number_underflow");
    expect(parseStrictJson("0e-400")).toBe(0);
  });

  it("numbers beyond ±(2^53−1), integer-looking or not", () => {
    expectRefused("9007199254740992", "unsafe_integer");
    expectRefused('{"amount_minor":-9007199254740993}', "unsafe_integer", "amount_minor");
    expectRefused("1e16", "unsafe_integer");
    // Every double this large is an integer, so a fraction does not rescue it.
    expectRefused("9007199254740993.5", "unsafe_integer");
    expectRefused("12345678901234567890.0", "unsafe_integer");
  });

  it("prototype-pollution keys", () => {
    expectRefused('{"__proto__":{"admin":true}}', "forbidden_key", "__proto__");
    expectRefused('{"a":{"constructor":{"prototype":{}}}}', "forbidden_key", "a.constructor");
    expectRefused('{"a":[{"prototype":1}]}', "forbidden_key", "a[0].prototype");
    expectRefused('{"\\u005f_proto__":1}', "forbidden_key", "__proto__");
  });

  it("trailing garbage", () => {
    expectRefused('{"a":1} x', "trailing_data");
    expectRefused('{"a":1}{"a":2}', "trailing_data");
    expectRefused("1 2", "trailing_data");
  });

  it("payloads over maxBytes (counted in UTF-8 bytes)", () => {
    const big = JSON.stringify({ s: "x".repeat(256 * 1024) });
    expectRefused(big, "payload_too_large");
    expect(refusal(() => parseStrictJson('"\u00e9\u00e9"', { maxBytes: 5 })).code).toBe("payload_too_large");
    expect(parseStrictJson('"\u00e9\u00e9"', { maxBytes: 6 })).toBe("\u00e9\u00e9");
  });

  it("payloads deeper than maxDepth", () => {
    expectRefused("[".repeat(33) + "]".repeat(33), "too_deep", "[0]".repeat(32));
    const err = refusal(() => parseStrictJson('{"a":{"b":{"c":1}}}', { maxDepth: 2 }));
    expect(err.code).toBe("too_deep");
    expect(err.path).toBe("a.b");
    // Depth is checked as the parser descends, so a huge nesting cannot blow the stack.
    expect(refusal(() => parseStrictJson("[".repeat(100_000))).code).toBe("too_deep");
  });

  it("malformed JSON that JSON5-ish parsers would accept", () => {
    for (const text of [
      "",
      " ",
      "{a:1}",
      "{'a':1}",
      '{"a":1,}',
      "[1,]",
      "[01]",
      "[.5]",
      "[1.]",
      "[+1]",
      "[NaN]",
      "[Infinity]",
      "[0x10]",
      '"\t"',
      '"\\x41"',
      '"\\u12"',
      '"abc',
      "\ufeff{}",
      "[1 2]",
      "{\"a\" 1}",
      "tru",
      "nul",
      "// c\n1",
    ]) {
      expect(refusal(() => parseStrictJson(text)).code, JSON.stringify(text)).toBe("syntax_error");
    }
  });

  it("keeps numbers and keys usable on ordinary objects", () => {
    const v = parseStrictJson('{"toString":1,"hasOwnProperty":2}') as Record<string, unknown>;
    expect(v.toString).toBe(1);
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
  });
});

describe("parseStrictJsonBytes", () => {
  it("decodes UTF-8 and refuses invalid bytes", () => {
    expect(parseStrictJsonBytes(new TextEncoder().encode('{"a":"\u20ac"}'))).toEqual({ a: "\u20ac" });
    expect(refusal(() => parseStrictJsonBytes(new Uint8Array([0x22, 0xff, 0x22]))).code).toBe("invalid_utf8");
    // CESU-style encoded surrogate half: not valid UTF-8.
    expect(refusal(() => parseStrictJsonBytes(new Uint8Array([0x22, 0xed, 0xa0, 0x80, 0x22]))).code).toBe("invalid_utf8");
  });

  it("checks size before decoding", () => {
    expect(refusal(() => parseStrictJsonBytes(new Uint8Array(11), { maxBytes: 10 })).code).toBe("payload_too_large");
  });

  it("refuses a byte-order mark", () => {
    expect(refusal(() => parseStrictJsonBytes(new Uint8Array([0xef, 0xbb, 0xbf, 0x31]))).code).toBe("syntax_error");
  });
});
